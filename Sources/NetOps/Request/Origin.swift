import Foundation

/// Where a request goes, as far as trust and connections care: scheme, host and port (RFC 6454).
///
/// The one rule every part of the package compares origins by: a token goes only to its API's
/// origins, credentials are stripped on a redirect to another, a circuit breaker and a rate
/// limiter keep their state per origin, a cache invalidates entries of the same origin, and
/// the NIO engine balances and pins connections by it. The scheme and host are compared
/// without case, an IPv6 literal without its brackets, and a missing port is the scheme's
/// default: `https://api.example.com` and `HTTPS://API.example.com:443` are one origin;
/// `http://api.example.com` and `https://uploads.example.com` are two.
public struct Origin: Hashable, Sendable, CustomStringConvertible {
    /// The scheme, lower case (`http`, `https`).
    public let scheme: String
    /// The host, lower case, without the brackets of an IPv6 literal.
    public let host: String
    /// The port, explicit or the scheme's default (80 for `http` and `ws`, 443 for `https` and
    /// `wss`).
    public let port: Int

    /// The origin of `url`; nil when it has no scheme or host, or no port and a scheme without
    /// a default one.
    public init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), var host = url.host?.lowercased(), !host.isEmpty else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, let port = url.port ?? Self.defaultPort(of: scheme) else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// The port a URL of `scheme` (lower case) means when it names none.
    public static func defaultPort(of scheme: String) -> Int? {
        switch scheme {
        case "http", "ws": 80
        case "https", "wss": 443
        default: nil
        }
    }

    /// Whether `first` and `second` have the same origin (false when either has none).
    public static func same(_ first: URL, _ second: URL) -> Bool {
        guard let first = Origin(first), let second = Origin(second) else { return false }
        return first == second
    }

    /// `scheme://host:port`, an IPv6 host in brackets.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(shownHost):\(port)"
    }
}
