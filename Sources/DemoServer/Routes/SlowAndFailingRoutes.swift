import Foundation
import Hummingbird

extension DemoRoutes {
    /// Thrown inside a body writer to make the server drop the connection mid-body.
    struct ConnectionDropped: Error {}

    /// `/delay`, `/drip` and `/truncated/{size}`.
    static func addSlowAndFailingRoutes(to router: Router<BasicRequestContext>) {
        // Answers after `?seconds=` (fractional allowed).
        router.get("delay") { request, _ in
            let seconds = request.uri.queryParameters.get("seconds", as: Double.self) ?? 1
            try await Task.sleep(for: .seconds(min(max(seconds, 0), 300)))
            return json(#"{"delayed":\#(seconds)}"#)
        }

        // Sends `?bytes=` bytes one at a time, `?interval=` seconds apart; headers come at once.
        router.get("drip") { request, _ in
            let count = min(max(request.uri.queryParameters.get("bytes", as: Int.self) ?? 10, 0), 10_000)
            let interval = min(max(request.uri.queryParameters.get("interval", as: Double.self) ?? 0.1, 0), 60)
            let body = ResponseBody(contentLength: count) { writer in
                for offset in 0..<count {
                    try await writer.write(ByteBuffer(bytes: [DemoPayload.byte(at: offset)]))
                    try await Task.sleep(for: .seconds(interval))
                }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: body)
        }

        // Promises `size` bytes, sends half of them, then closes the connection.
        router.get("truncated/{size}") { _, context in
            let size = context.parameters.get("size", as: Int.self) ?? 1_024
            let body = ResponseBody(contentLength: size) { writer in
                try await writePayload(first: 0, length: size, rate: nil, limit: size / 2, to: &writer)
                throw ConnectionDropped()
            }
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: body)
        }
    }
}
