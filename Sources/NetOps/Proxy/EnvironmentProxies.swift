import Foundation

/// The proxy variables of an environment, read as curl reads them, so that both engines agree
/// with each other and with the `curl` a service's operators try by hand:
///
/// - `http_proxy` for http URLs (lower case only: a CGI server sets `HTTP_PROXY` from a request's
///   `Proxy:` header, the "httpoxy" flaw, so curl ignores the upper-case name);
/// - `https_proxy` or `HTTPS_PROXY` for https URLs;
/// - `all_proxy` or `ALL_PROXY` when the scheme's own variable is not set;
/// - `no_proxy` or `NO_PROXY`: a comma-separated list of hosts that connect directly. `*` alone
///   matches every host; a name matches itself and its subdomains (`example.com` and
///   `.example.com` both match `api.example.com`); an IP address matches itself, and an address
///   with a prefix length (`10.0.0.0/8`, `fd00::/8`) the addresses in that range. A `:port` on an
///   entry is ignored, as curl ignores it.
///
/// A proxy is written `[scheme://][user:password@]host[:port]`: scheme `http` (the default) or
/// `socks5`/`socks5h`, port 1080 when none is given (curl's default). A value NetOps cannot use
/// (an `https://` or `socks4://` proxy, a value that is no URL) makes `isValid` false, and a
/// request it would carry fails on the NIO engine (`refusal(for:)`) instead of going directly,
/// which would send it where its operators meant it not to go. `NO_PROXY` entries may be
/// bracketed IPv6 addresses (`[::1]`, with or without a port) and names with a trailing dot.
public struct EnvironmentProxies: Sendable, Hashable {
    /// The proxy for http URLs.
    public let http: ProxySettings?
    /// The proxy for https URLs.
    public let https: ProxySettings?
    /// The hosts and ranges that connect directly.
    public let exclusions: [String]
    /// False when a variable was set but could not be read as a proxy.
    public let isValid: Bool
    /// The variable for http URLs, and its scheme, when it names a proxy NetOps cannot use.
    private let unusableHTTP: Unusable?
    /// The variable for https URLs, and its scheme, when it names a proxy NetOps cannot use.
    private let unusableHTTPS: Unusable?

    /// A variable that names a proxy NetOps cannot use.
    private struct Unusable: Sendable, Hashable {
        let variable: String
        let scheme: String
    }

    /// The proxies `environment` names.
    public init(_ environment: [String: String]) {
        func value(_ names: String...) -> (name: String, text: String)? {
            for name in names {
                if let text = environment[name], !text.trimmingCharacters(in: .whitespaces).isEmpty { return (name, text) }
            }
            return nil
        }
        let all = value("all_proxy", "ALL_PROXY")
        let httpText = value("http_proxy") ?? all
        let httpsText = value("https_proxy", "HTTPS_PROXY") ?? all
        http = httpText.flatMap { Self.parse($0.text) }
        https = httpsText.flatMap { Self.parse($0.text) }
        isValid = (httpText == nil || http != nil) && (httpsText == nil || https != nil)
        unusableHTTP = http == nil ? httpText.map { Unusable(variable: $0.name, scheme: Self.scheme(of: $0.text)) } : nil
        unusableHTTPS = https == nil ? httpsText.map { Unusable(variable: $0.name, scheme: Self.scheme(of: $0.text)) } : nil
        exclusions = (value("no_proxy", "NO_PROXY")?.text ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }.filter { !$0.isEmpty }
    }

    /// Why a request to `url` cannot go as these variables say: the variable for its scheme names
    /// a proxy NetOps cannot use; nil when it can go (through a proxy or directly).
    public func refusal(for url: URL) -> String? {
        let unusable: Unusable?
        switch url.scheme?.lowercased() {
        case "http": unusable = unusableHTTP
        case "https": unusable = unusableHTTPS
        default: unusable = nil
        }
        guard let unusable, let host = url.host?.lowercased(), !isExcluded(host) else { return nil }
        return "\(unusable.variable) names a \(unusable.scheme) proxy, which NetOps cannot use (only http:// and socks5:// proxies); "
            + "the request is not sent directly instead: unset the variable, add \(host) to NO_PROXY, or choose a proxy in code"
    }

    /// The scheme a proxy value names (`https://`, `socks4://`), or `unreadable` when it names none.
    private static func scheme(of text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let end = trimmed.range(of: "://") else { return "unreadable" }
        return trimmed[..<end.lowerBound].lowercased() + "://"
    }

    /// The proxy a request to `url` goes through; nil: directly.
    public func proxy(for url: URL) -> ProxySettings? {
        let proxy: ProxySettings?
        switch url.scheme?.lowercased() {
        case "http": proxy = http
        case "https": proxy = https
        default: proxy = nil
        }
        guard let proxy, let host = url.host?.lowercased() else { return nil }
        return isExcluded(host) ? nil : proxy
    }

    /// Whether `host` connects directly (`no_proxy`).
    func isExcluded(_ host: String) -> Bool {
        var host = Substring(host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host)
        while host.hasSuffix(".") { host = host.dropLast() }
        for entry in exclusions {
            if entry == "*" { return true }
            var name = Substring(entry)
            if name.hasPrefix("[") {
                // A bracketed IPv6 address, maybe with a port: `[::1]`, `[::1]:8080`, `[fd00::]/8`.
                guard let close = name.firstIndex(of: "]") else { continue }
                let rest = name[name.index(after: close)...]
                name = name[name.index(after: name.startIndex)..<close] + (rest.hasPrefix("/") ? rest : "")
            } else if let colon = name.lastIndex(of: ":"), name.firstIndex(of: ":") == colon {
                // A name or IPv4 address with a port.
                name = name[..<colon]
            }
            if let range = IPRange(String(name)), let address = IPRange.bytes(of: String(host)) {
                if range.contains(address) { return true }
                continue
            }
            while name.hasPrefix(".") { name = name.dropFirst() }
            while name.hasSuffix(".") { name = name.dropLast() }
            guard !name.isEmpty else { continue }
            if host == name || host.hasSuffix("." + name) { return true }
        }
        return false
    }

    /// A proxy written `[scheme://][user:password@]host[:port]`, or nil.
    static func parse(_ text: String) -> ProxySettings? {
        var text = text.trimmingCharacters(in: .whitespaces)
        if !text.contains("://") { text = "http://" + text }
        guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty else { return nil }
        let port = components.port ?? 1080
        switch components.scheme?.lowercased() {
        case "http":
            let credentials = components.user.map {
                ProxySettings.Credentials(username: $0.removingPercentEncoding ?? $0, password: components.password?.removingPercentEncoding ?? "")
            }
            return .http(host: host, port: port, credentials: credentials)
        case "socks5", "socks5h":
            return .socks5(host: host, port: port)
        default:
            return nil
        }
    }
}

/// An IP address range written `address` or `address/prefix`, IPv4 or IPv6.
private struct IPRange {
    let bytes: [UInt8]
    let prefix: Int

    init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard let first = parts.first, let bytes = Self.bytes(of: String(first)) else { return nil }
        let prefix = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
        guard let prefix, prefix >= 0, prefix <= bytes.count * 8 else { return nil }
        self.bytes = bytes
        self.prefix = prefix
    }

    func contains(_ address: [UInt8]) -> Bool {
        guard address.count == bytes.count else { return false }
        var left = prefix
        for (mine, theirs) in zip(bytes, address) where left > 0 {
            let bits = min(8, left)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if mine & mask != theirs & mask { return false }
            left -= bits
        }
        return true
    }

    /// The bytes of an IPv4 or IPv6 address, or nil when `text` is not one.
    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
