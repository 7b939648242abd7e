import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a redirected request may carry: nothing that authenticates the caller goes to another
/// origin (scheme, host and port), whichever engine follows the redirect.
package enum RedirectPolicy {
    /// Header fields dropped when a redirect leaves the origin.
    package static let credentialHeaders = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// Query parameters dropped when a redirect leaves the origin (a server that copies the
    /// caller's `access_token` into its `Location` would otherwise hand it to another host).
    package static let credentialQueryItems: Set<String> = ["access_token"]

    /// `request` (the redirect's target) without credential headers and token parameters when it
    /// leaves `origin`'s origin.
    package static func request(_ request: URLRequest, redirectedFrom origin: URL?) -> URLRequest {
        guard let origin, let target = request.url, !sameOrigin(origin, target) else { return request }
        var stripped = request
        for name in credentialHeaders {
            stripped.setValue(nil, forHTTPHeaderField: name)
        }
        if var components = URLComponents(url: target, resolvingAgainstBaseURL: false),
            let items = components.queryItems, items.contains(where: { credentialQueryItems.contains($0.name) })
        {
            let kept = items.filter { !credentialQueryItems.contains($0.name) }
            components.queryItems = kept.isEmpty ? nil : kept
            stripped.url = components.url ?? target
        }
        return stripped
    }

    /// Whether two URLs share scheme, host and port (default ports filled in).
    package static func sameOrigin(_ first: URL, _ second: URL) -> Bool {
        func key(_ url: URL) -> String {
            let scheme = url.scheme?.lowercased() ?? ""
            let port = url.port ?? (scheme == "https" ? 443 : 80)
            return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
        }
        return key(first) == key(second)
    }
}
