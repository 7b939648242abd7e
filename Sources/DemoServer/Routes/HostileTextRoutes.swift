import Foundation
import Hummingbird

extension DemoRoutes {
    /// Headers every client sends, left out of `/hostile/echo-error`'s answer.
    private static let commonHeaders: Set<String> = [
        "host", "user-agent", "accept", "accept-encoding", "accept-language", "connection", "content-length", "content-type",
        "traceparent", "tracestate", "x-request-id",
    ]

    /// Routes whose answers are hostile text, for SecurityTests:
    /// - `/hostile/echo-error` (any method): a 400 whose plain-text body repeats the request —
    ///   its query, its body and its uncommon headers, one per line — as a careless server's
    ///   error page does, secrets included;
    /// - `/hostile/forge`: a 500 whose body holds CR, LF, an escape sequence and a fake log line;
    /// - `/hostile/wrong-elements?count=N`: `{"items": [N strings]}` for a template that wants
    ///   numbers: N validation errors from one body.
    static func addHostileTextRoutes(to router: Router<BasicRequestContext>) {
        for method in [HTTPRequest.Method.get, .post, .put] {
            router.on("hostile/echo-error", method: method) { request, _ in
                let body = try await request.body.collect(upTo: 1 << 20)
                var lines = ["query: \(request.uri.query ?? "")", "body: \(String(buffer: body))"]
                for field in request.headers where !commonHeaders.contains(field.name.canonicalName.lowercased()) {
                    lines.append("\(field.name.canonicalName): \(field.value)")
                }
                return Response(
                    status: .badRequest, headers: [.contentType: "text/plain; charset=utf-8"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: lines.joined(separator: "\r\n"))))
            }
        }

        router.get("hostile/forge") { _, _ in
            let text = "bad request\r\nerror 2026-01-01T00:00:00Z FORGED LOG LINE level=critical\n\u{1B}[31mred\u{2028}next\u{0}end"
            return Response(
                status: .internalServerError, headers: [.contentType: "text/plain; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }

        router.get("hostile/wrong-elements") { request, _ in
            let count = min(request.uri.queryParameters["count"].flatMap { Int($0) } ?? 10, 2_000_000)
            var buffer = ByteBuffer()
            buffer.reserveCapacity(count * 4 + 16)
            buffer.writeString(#"{"items":["#)
            for index in 0..<count { buffer.writeString(index == 0 ? #""x""# : #","x""#) }
            buffer.writeString("]}")
            return Response(
                status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: buffer))
        }
    }
}
