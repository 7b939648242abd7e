import Foundation
import Hummingbird

extension DemoRoutes {
    /// The fault routes of the chaos runs: a connection reset mid-body, garbage instead of JSON,
    /// a random 5xx, and a redirect to any URL (another host included).
    ///
    /// With `/delay`, `/drip`, `/truncated/{size}` (fewer bytes than `Content-Length`),
    /// `/status/{code}` and the realms' `/control` (a token endpoint that fails or hangs) they
    /// cover every fault `apilayer chaos` injects.
    static func addFaultRoutes(to router: Router<BasicRequestContext>) {
        // Chunked (no Content-Length), `?after=` bytes sent, then the connection is dropped: the
        // client cannot take the body for complete.
        router.get("reset/{size}") { request, context in
            let size = max(context.parameters.get("size", as: Int.self) ?? 4_096, 1)
            let after = min(max(request.uri.queryParameters.get("after", as: Int.self) ?? size / 4, 0), size - 1)
            let body = ResponseBody { writer in
                if after > 0 {
                    try await writePayload(first: 0, length: size, rate: nil, limit: after, to: &writer)
                }
                throw ConnectionDropped()
            }
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: body)
        }

        // 200 with a JSON content type and a body that is not JSON.
        router.get("garbage") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"id":1,"name":"trunc<html>\u{0}oops"#)))
        }

        // 500, 502, 503 or 504 at random, or 200 with `?ok=` probability (default 0.5).
        router.get("random-5xx") { request, _ in
            let okShare = min(max(request.uri.queryParameters.get("ok", as: Double.self) ?? 0.5, 0), 1)
            if Double.random(in: 0..<1) < okShare { return json(#"{"ok":true}"#) }
            let code = [500, 502, 503, 504].randomElement() ?? 500
            return json(#"{"status":\#(code)}"#, status: .init(code: code))
        }

        // 429 with `Retry-After: S` (`?retryAfter=S`, seconds, fractions allowed, default 1, at
        // most 60), or 200 with `?ok=` probability (default 0.5): a server that sheds load now
        // and then and says when to come back.
        router.get("random-429") { request, _ in
            let query = request.uri.queryParameters
            let okShare = min(max(query.get("ok", as: Double.self) ?? 0.5, 0), 1)
            if Double.random(in: 0..<1) < okShare { return json(#"{"ok":true}"#) }
            let seconds = min(max(query.get("retryAfter", as: Double.self) ?? 1, 0), 60)
            return json(#"{"message":"rate limit exceeded"}"#, status: .tooManyRequests, headers: [.retryAfter: "\(seconds)"])
        }
    }

    /// `/realm/{realm}/random-401?p=P`: like `/protected`, but also refuses a valid token with
    /// probability P (default 0.1), as a service that loses sessions now and then.
    static func addRandomUnauthorizedRoute(to router: Router<BasicRequestContext>, realms: TokenRealms) {
        router.get("realm/{realm}/random-401") { request, context in
            let authority = realms[try context.parameters.require("realm")]
            let share = min(max(request.uri.queryParameters.get("p", as: Double.self) ?? 0.1, 0), 1)
            guard authority.admit(bearer(of: request)), Double.random(in: 0..<1) >= share else {
                return json(#"{"error":"invalid_token"}"#, status: .unauthorized)
            }
            return json(#"{"ok":true}"#)
        }
    }
}
