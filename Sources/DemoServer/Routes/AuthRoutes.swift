import Foundation
import Hummingbird
import NIOConcurrencyHelpers

extension DemoRoutes {
    /// The OAuth 2.0 token endpoint, protected routes and a control route, per realm:
    /// - `POST /realm/{realm}/oauth/token` — form: `grant_type=refresh_token&refresh_token=…` or
    ///   `grant_type=client_credentials&client_id=demo-client&client_secret=demo-secret`;
    /// - `GET|POST /realm/{realm}/protected` — needs `Authorization: Bearer …` or `?access_token=`:
    ///   200 `{"ok":true}`, else 401 `{"error":"invalid_token"}`;
    /// - `GET /realm/{realm}/body-error` — the same check, but refusals come as 200 with
    ///   `{"error":{"error_code":5,…}}` (a service that reports auth errors in the body);
    /// - `GET /realm/{realm}/flaky?key=K&fail=N&status=S[&retryAfter=R]` — the first N requests
    ///   with key K answer S (with `Retry-After: R`), later ones 200 with the attempt count;
    /// - `POST /realm/{realm}/control` — JSON `{"mode","delay","lifetime","maxUses","expireAll",
    ///   "rotation","stallRefreshes","stallSeconds"}` changes the realm; `GET` reports its settings
    ///   and counters. With `stallRefreshes: N`, the next N token requests are held `stallSeconds`
    ///   and answered 503 `temporarily_unavailable`, their grant neither read nor spent.
    static func addAuthRoutes(to router: Router<BasicRequestContext>, realms: TokenRealms, flaky: FlakyCounters) {
        router.post("realm/{realm}/oauth/token") { request, context in
            let authority = realms[try context.parameters.require("realm")]
            let body = try await request.body.collect(upTo: 64 * 1_024)
            if let stall = authority.takeStall() {
                // Received, never processed: the grant is not looked at, so nothing is spent.
                try await Task.sleep(for: .seconds(stall))
                return json(#"{"error":"temporarily_unavailable"}"#, status: .serviceUnavailable)
            }
            let form = formFields(String(buffer: body))
            let settings = authority.snapshot
            if settings.delay > 0 { try await Task.sleep(for: .seconds(settings.delay)) }
            switch settings.mode {
            case .hang:
                try await Task.sleep(for: .seconds(600))
                return json(#"{"error":"too late"}"#, status: .gatewayTimeout)
            case .fail:
                _ = authority.grant(type: "", refreshToken: nil, clientID: nil, clientSecret: nil)
                return json(#"{"error":"server_error"}"#, status: .internalServerError)
            case .garbage:
                _ = authority.grant(type: "", refreshToken: nil, clientID: nil, clientSecret: nil)
                return Response(status: .ok, headers: [.contentType: "text/html"], body: .init(byteBuffer: ByteBuffer(string: "<html>oops</html>")))
            case .normal:
                let answer = authority.grant(
                    type: form["grant_type"] ?? "", refreshToken: form["refresh_token"],
                    clientID: form["client_id"], clientSecret: form["client_secret"])
                return json(answer.body, status: .init(code: answer.status), headers: [.cacheControl: "no-store"])
            }
        }

        for method in [HTTPRequest.Method.get, .post] {
            router.on("realm/{realm}/protected", method: method) { request, context in
                let authority = realms[try context.parameters.require("realm")]
                _ = try await request.body.collect(upTo: 1 << 20)
                guard authority.admit(bearer(of: request)) else {
                    return json(#"{"error":"invalid_token"}"#, status: .unauthorized)
                }
                return json(#"{"ok":true,"method":"\#(request.method.rawValue)"}"#)
            }
        }

        router.get("realm/{realm}/body-error") { request, context in
            let authority = realms[try context.parameters.require("realm")]
            guard authority.admit(bearer(of: request)) else {
                return json(#"{"error":{"error_code":5,"error_msg":"User authorization failed: invalid access_token"}}"#)
            }
            return json(#"{"response":{"ok":1}}"#)
        }

        router.get("realm/{realm}/flaky") { request, context in
            let realm = try context.parameters.require("realm")
            let query = request.uri.queryParameters
            let key = realm + "/" + String(query["key"] ?? "")
            let failures = query.get("fail", as: Int.self) ?? 1
            let status = query.get("status", as: Int.self) ?? 503
            let attempt = flaky.next(key)
            if attempt <= failures {
                var headers: HTTPFields = [:]
                if let retryAfter = query["retryAfter"] { headers[.retryAfter] = String(retryAfter) }
                return json(#"{"attempt":\#(attempt)}"#, status: .init(code: status), headers: headers)
            }
            return json(#"{"attempt":\#(attempt),"ok":true}"#)
        }
        router.post("realm/{realm}/flaky") { request, context in
            let key = try context.parameters.require("realm") + "/" + String(request.uri.queryParameters["key"] ?? "")
            let attempt = flaky.next(key)
            return json(#"{"attempt":\#(attempt)}"#, status: .serviceUnavailable)
        }

        router.get("realm/{realm}/control") { _, context in
            let snapshot = realms[try context.parameters.require("realm")].snapshot
            let data = try JSONEncoder().encode(snapshot)
            return json(String(decoding: data, as: UTF8.self))
        }
        router.post("realm/{realm}/control") { request, context in
            struct Control: Decodable {
                var mode: TokenAuthority.Mode?
                var delay: Double?
                var lifetime: Double?
                var maxUses: Int?
                var expireAll: Bool?
                var clearLifetime: Bool?
                var rotation: Bool?
                var stallRefreshes: Int?
                var stallSeconds: Double?
            }
            let authority = realms[try context.parameters.require("realm")]
            let body = try await request.body.collect(upTo: 64 * 1_024)
            let control = try JSONDecoder().decode(Control.self, from: Data(buffer: body))
            authority.configure(
                mode: control.mode, delay: control.delay,
                lifetime: control.clearLifetime == true ? .some(nil) : control.lifetime.map { .some($0) },
                maxUses: control.maxUses.map { .some($0) }, expireAll: control.expireAll ?? false)
            authority.configureRefresh(
                rotation: control.rotation, stallRefreshes: control.stallRefreshes, stallSeconds: control.stallSeconds)
            let data = try JSONEncoder().encode(authority.snapshot)
            return json(String(decoding: data, as: UTF8.self))
        }
    }

    /// The bearer token of a request: the `Authorization` header, else the `access_token` parameter.
    static func bearer(of request: Request) -> String? {
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") {
            return String(header.dropFirst("bearer ".count))
        }
        return request.uri.queryParameters["access_token"].map(String.init)
    }

    /// `a=1&b=x%20y` as a dictionary.
    static func formFields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }
}

/// Attempt counters of the `flaky` route, per key.
final class FlakyCounters: Sendable {
    private let counts = NIOLockedValueBox<[String: Int]>([:])

    /// Counts one more request with `key` and returns its number (1 for the first).
    func next(_ key: String) -> Int {
        counts.withLockedValue { counts in
            counts[key, default: 0] += 1
            return counts[key]!
        }
    }
}
