import Foundation
import Hummingbird

/// The routes DemoServer serves, grouped by purpose, one file per group.
enum DemoRoutes {
    /// A JSON response with the right content type.
    static func json(_ text: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// A JSON string literal for `text` (quotes and escapes included).
    static func quoted(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [])) ?? Data("[\"\"]".utf8)
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }

    /// `/json`, `/status/{code}`, `/auth/challenge`, `/auth/plain`, `/echo` and `/redirect`.
    static func addBasicRoutes(to router: Router<BasicRequestContext>) {
        router.get("json") { _, _ in
            json(#"{"id":1,"name":"APILayer","active":true,"score":4.5,"tags":["swift","linux"],"owner":null}"#)
        }

        router.get("status/{code}") { _, context in
            let code = context.parameters.get("code", as: Int.self) ?? 500
            guard (100...599).contains(code) else { throw HTTPError(.badRequest, message: "status must be 100...599") }
            return json(#"{"status":\#(code)}"#, status: .init(code: code))
        }

        router.get("auth/challenge") { _, _ in
            json(#"{"error":"unauthorized"}"#, status: .unauthorized, headers: [.wwwAuthenticate: #"Basic realm="demo""#])
        }

        router.get("auth/plain") { _, _ in
            json(#"{"error":"unauthorized"}"#, status: .unauthorized)
        }

        // `/redirect?to=URL`: a 302 to `URL` (absolute, possibly another host), for redirect tests.
        router.get("redirect") { request, _ in
            guard let target = request.uri.queryParameters["to"].map(String.init) else {
                throw HTTPError(.badRequest, message: "redirect needs ?to=URL")
            }
            return Response(status: .found, headers: [.location: target])
        }

        for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete] {
            router.on("echo", method: method) { request, _ in
                try await echo(request)
            }
        }
    }

    /// Describes the request back to the client: method, path, query, headers, body size and text.
    private static func echo(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 16 << 20)
        let query = request.uri.queryParameters.map { "\(quoted(String($0.key))):\(quoted(String($0.value)))" }
        let headers = request.headers.map { "\(quoted($0.name.canonicalName.lowercased())):\(quoted($0.value))" }
        let text = String(buffer: body)
        return json(
            """
            {"method":\(quoted(request.method.rawValue)),"path":\(quoted(request.uri.path)),\
            "query":{\(query.joined(separator: ","))},"headers":{\(headers.joined(separator: ","))},\
            "bodyLength":\(body.readableBytes),"body":\(quoted(text))}
            """)
    }
}
