import Foundation

/// An origin (scheme, host, port), as AsyncHTTPClient pools its connections: what
/// `HTTP2Pinning` remembers and `LoopBalance` counts requests by.
struct Origin: Hashable, Sendable {
    let scheme: String
    let host: String
    let port: Int

    /// The origin of `url`, default ports filled in; nil without a host.
    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = url.port ?? (scheme == "https" ? 443 : 80)
    }
}
