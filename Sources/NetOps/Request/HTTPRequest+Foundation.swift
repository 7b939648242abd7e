import Foundation
import HTTPTypes
import HTTPTypesFoundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPRequest {
    /// The Foundation request an engine is handed for this request; nil when its scheme,
    /// authority and path make no URL (a request without a scheme or an authority, a `CONNECT`,
    /// an `OPTIONS *`).
    ///
    /// HTTPTypesFoundation's `URLRequest(httpRequest:)` makes it: the URL, the method, and each
    /// field name once, repeated values joined with ", " ("; " for `Cookie`). That conversion hands
    /// Foundation a value with bytes past ASCII as ISO Latin-1 text, which is how Apple's
    /// Foundation reads a header; FoundationNetworking and the NIO engine write a header's text
    /// as UTF-8, so on Linux such a value would go out re-encoded (`é` as `Ã©`). Those fields
    /// alone are set again from their UTF-8 text, and go out as the request holds them.
    package var foundationRequest: URLRequest? {
        guard var request = URLRequest(httpRequest: self) else { return nil }
        #if canImport(FoundationNetworking)
        var reencoded: [HTTPField.Name] = []
        for field in headerFields where !reencoded.contains(field.name) {
            if field.withUnsafeBytesOfValue({ $0.contains { $0 >= 0x80 } }) { reencoded.append(field.name) }
        }
        for name in reencoded { request.setValue(headerFields[name], forHTTPHeaderField: name.rawName) }
        #endif
        return request
    }

    /// The request's target as text for an error: scheme, authority and path as far as the
    /// request has them, and which of them it lacks.
    package var targetDescription: String {
        var text = (scheme.map { $0 + "://" } ?? "") + (authority ?? "") + (path ?? "")
        let missing = [("scheme", scheme), ("authority", authority), ("path", path)].filter { $0.1 == nil }
        if !missing.isEmpty { text += " (" + missing.map { "no " + $0.0 }.joined(separator: " and ") + ")" }
        return text
    }
}

extension RequestFactory {
    /// The Foundation request of `request` with `body`, or why there is none: an `HTTPRequest`
    /// whose scheme, authority and path make no URL is `NetOpsError.Kind.invalidURL`, kept by the
    /// operation and reported at start, as `make(_:_:parameters:encoding:headers:)` reports an
    /// unusable URL.
    package static func make(_ request: HTTPRequest, body: Data?) -> Result<URLRequest, NetOpsError> {
        guard var urlRequest = request.foundationRequest else {
            return .failure(NetOpsError(.invalidURL(request.targetDescription), url: nil))
        }
        if let body { urlRequest.httpBody = body }
        return .success(urlRequest)
    }
}
