import Foundation
import HTTPTypes
import Hummingbird

extension DemoRoutes {
    /// The routes the security tests need besides the conformance routes' redirects: answers
    /// that set cookies, and a token answer of any length.
    ///
    /// - `/large-token/{size}` (POST): a token answer whose `access_token` is `size` bytes long
    ///   (at most 64 MiB).
    /// - `/cookies/set?cookie=…` (GET; `cookie` repeatable): `200 {}` with one `Set-Cookie` field
    ///   per `cookie` value, sent as given (attributes included).
    static func addSecurityRoutes(to router: Router<BasicRequestContext>) {
        router.post("large-token/{size}") { _, context in
            let size = min(context.parameters.get("size", as: Int.self) ?? 0, 64 << 20)
            return json(#"{"access_token":""# + String(repeating: "x", count: size) + #"","token_type":"bearer"}"#)
        }

        router.get("cookies/set") { request, _ in
            var fields = HTTPFields()
            for value in request.uri.queryParameters.getAll("cookie") {
                fields.append(HTTPField(name: .setCookie, value: String(value)))
            }
            return json("{}", headers: fields)
        }
    }
}
