import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a request carries the access token.
public enum TokenPlacement: Sendable, Equatable {
    /// `Authorization: Bearer <token>` (RFC 6750 §2.1).
    case authorizationHeader
    /// A query parameter with this name, e.g. `access_token` (RFC 6750 §2.3).
    case queryParameter(String)

    /// `request` carrying `token`, replacing any token it carried before.
    public func apply(_ token: String, to request: URLRequest) -> URLRequest {
        var request = request
        switch self {
        case .authorizationHeader:
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        case let .queryParameter(name):
            guard let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return request }
            var items = (components.queryItems ?? []).filter { $0.name != name }
            items.append(URLQueryItem(name: name, value: token))
            components.queryItems = items
            // `+` is a space in form-decoded queries: keep it literal.
            components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
            request.url = components.url ?? url
        }
        return request
    }
}
