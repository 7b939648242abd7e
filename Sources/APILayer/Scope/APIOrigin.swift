import Foundation

/// Where a request goes, as far as credentials care: scheme, host and port (RFC 6454).
///
/// An API's token is placed only on requests to one of its origins: its base URL's and the
/// ones it lists as trusted. `https://api.example.com` and `https://api.example.com:443` are
/// the same origin; `http://api.example.com` and `https://uploads.example.com` are not.
public struct APIOrigin: Hashable, Sendable, CustomStringConvertible {
    /// `http` or `https`, lowercased.
    public let scheme: String
    /// The host, lowercased, without the brackets of an IPv6 literal.
    public let host: String
    /// The port, explicit or the scheme's default (80, 443).
    public let port: Int

    /// The origin of `url`; nil when it has no scheme or host.
    public init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), var host = url.host?.lowercased(), !host.isEmpty else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let defaultPort: Int?
        switch scheme {
        case "http": defaultPort = 80
        case "https": defaultPort = 443
        default: defaultPort = nil
        }
        guard let port = url.port ?? defaultPort else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// `scheme://host:port`.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(shownHost):\(port)"
    }
}
