import Foundation
import Hummingbird

extension DemoRoutes {
    /// SampleService: a small social-network API in the style of the reference's service, per
    /// realm (see `Docs/demo-server.md`):
    /// - `GET|POST /api/{realm}/method/{name}` — `users.get`, `friends.get`, `wall.get`,
    ///   `wall.post`, `photos.getAll`, `photos.getWallUploadServer`, `photos.saveWallPhoto`,
    ///   `auth.logout`; parameters in the query or a form body; answers
    ///   `{"response": …}` or, always with status 200, `{"error":{"error_code":N,"error_msg":…}}`
    ///   (code 5 when the access token is missing, expired or revoked); `SampleService.fault`
    ///   makes every method answer HTML, an empty body or JSON of the wrong shape instead;
    /// - `POST /api/{realm}/upload/{ticket}` — the upload URL `photos.getWallUploadServer` hands
    ///   out: a multipart body with a file part; answers the receipt for `photos.saveWallPhoto`;
    /// - `GET /api/{realm}/photos/{owner}_{id}_{size}.jpg` — a photo's bytes.
    static func addSampleAPIRoutes(to router: Router<BasicRequestContext>, services: SampleServices, realms: TokenRealms) {
        for method in [HTTPRequest.Method.get, .post] {
            router.on("api/{realm}/method/{name}", method: method) { request, context in
                let realm = try context.parameters.require("realm")
                let name = try context.parameters.require("name")
                var call = SampleCall(
                    name: name, realm: realm, authority: request.head.authority ?? "127.0.0.1",
                    service: services[realm])
                try await call.readParameters(of: request)
                call.service.count(name)
                let latency = call.service.latency
                if latency > 0 { try await Task.sleep(for: .seconds(latency)) }
                switch call.service.fault {
                case .htmlPage?:
                    return Response(
                        status: .ok, headers: [.contentType: "text/html"],
                        body: .init(byteBuffer: ByteBuffer(string: "<html><body>Down for maintenance</body></html>")))
                case .emptyBody?:
                    return Response(status: .ok, headers: [.contentType: "application/json"])
                case .wrongShape?:
                    return json(#"{"response":{"unexpected":true}}"#)
                case nil:
                    break
                }
                let token = bearer(of: request) ?? call.parameters["access_token"]
                let tokens = realms[realm]
                guard tokens.admit(token) else {
                    return call.error(5, "User authorization failed: invalid access_token")
                }
                if name == "auth.logout", let token { tokens.revoke(token) }
                return call.answer()
            }
        }

        router.post("api/{realm}/upload/{ticket}") { request, context in
            let service = services[try context.parameters.require("realm")]
            let ticket = try context.parameters.require("ticket")
            guard let contentType = request.headers[.contentType], let boundary = boundary(of: contentType) else {
                return json(#"{"error":"expected multipart/form-data"}"#, status: .badRequest)
            }
            let body = try await request.body.collect(upTo: 64 << 20)
            guard let file = firstFile(in: body, boundary: boundary) else {
                return json(#"{"error":"no file part"}"#, status: .badRequest)
            }
            guard let receipt = service.acceptUpload(file, ticket: ticket) else {
                return json(#"{"error":"unknown or used upload ticket"}"#, status: .badRequest)
            }
            return try encoded(receipt)
        }

        router.get("api/{realm}/photos/{file}") { _, context in
            let service = services[try context.parameters.require("realm")]
            let file = try context.parameters.require("file")
            let parts = file.replacingOccurrences(of: ".jpg", with: "").split(separator: "_")
            guard file.hasSuffix(".jpg"), parts.count == 3, let owner = Int(parts[0]), let id = Int(parts[1]),
                let bytes = service.photoBytes(owner: owner, id: id)
            else {
                return json(#"{"error":"no such photo"}"#, status: .notFound)
            }
            return Response(status: .ok, headers: [.contentType: "image/jpeg"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
    }

    /// A value as a JSON response.
    static func encoded(_ value: some Encodable) throws -> Response {
        json(String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
    }
}
