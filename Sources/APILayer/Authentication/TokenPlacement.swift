import Foundation
import NetOps

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

extension TokenPlacement {
    /// The query parameter this placement puts the token under, if any: it joins the redaction
    /// and the redirect strip list of every operation that carries the token.
    var parameterName: String? {
        if case let .queryParameter(name) = self { return name }
        return nil
    }

    /// `request` carrying `token`, or why it cannot: a token with a control character (it comes
    /// from a token endpoint's JSON) would add a header line, and `URLRequest` would drop it
    /// without a word.
    func placing(_ token: String, in request: URLRequest) -> Result<URLRequest, NetOpsError> {
        if case .authorizationHeader = self, !RequestCheck.isFieldValue(token) {
            let reason = "the access token holds a control character (CR, LF or another): it cannot go in the Authorization header"
            return .failure(NetOpsError(.invalidRequest(reason: reason), url: request.url))
        }
        return .success(apply(token, to: request))
    }
}
