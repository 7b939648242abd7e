import Foundation
import Hummingbird
import NIOConcurrencyHelpers

extension DemoRoutes {
    /// `GET|POST /counted/{key}?delay=S&bytes=N&pause=P` — counts each request per key, so tests
    /// running at once do not share a count; answers after S seconds (default 0) with N bytes of
    /// JSON (default: a short object; at most 16 MiB), the body sent in 64 KiB chunks P seconds
    /// apart (default 0, at most 1).
    ///
    /// `GET /counted-stats/{key}` answers `{"served": total, "maxInFlight": most}`: `most` is
    /// the largest number of the key's requests the server held at once (before their answer).
    static func addCountedRoutes(to router: Router<BasicRequestContext>) {
        struct Count {
            var served = 0
            var inFlight = 0
            var maxInFlight = 0
        }
        let counts = NIOLockedValueBox<[String: Count]>([:])
        let answer: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, context in
            let key = try context.parameters.require("key")
            let served = counts.withLockedValue { counts -> Int in
                counts[key, default: Count()].served += 1
                counts[key]!.inFlight += 1
                counts[key]!.maxInFlight = max(counts[key]!.maxInFlight, counts[key]!.inFlight)
                return counts[key]!.served
            }
            defer { counts.withLockedValue { $0[key]?.inFlight -= 1 } }
            let query = request.uri.queryParameters
            let delay = min(max(query.get("delay", as: Double.self) ?? 0, 0), 60)
            if delay > 0 { try await Task.sleep(for: .seconds(delay)) }
            guard let size = query.get("bytes", as: Int.self) else {
                return json(#"{"key":\#(quoted(key)),"served":\#(served)}"#)
            }
            let total = min(max(size, 2), 16 << 20)
            let pause = min(max(query.get("pause", as: Double.self) ?? 0, 0), 1)
            // `[` + spaces + `]`: valid JSON of exactly `total` bytes, `pause` seconds between chunks.
            let body = ResponseBody(contentLength: total) { writer in
                try await writer.write(ByteBuffer(string: "["))
                var left = total - 2
                while left > 0 {
                    if pause > 0 { try await Task.sleep(for: .seconds(pause)) }
                    let chunk = min(left, 64 << 10)
                    try await writer.write(ByteBuffer(repeating: UInt8(ascii: " "), count: chunk))
                    left -= chunk
                }
                try await writer.write(ByteBuffer(string: "]"))
                try await writer.finish(nil)
            }
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.contentLength] = String(total)
            return Response(status: .ok, headers: headers, body: body)
        }
        router.get("counted/{key}", use: answer)
        router.post("counted/{key}", use: answer)
        router.get("counted-stats/{key}") { _, context in
            let key = try context.parameters.require("key")
            let count = counts.withLockedValue { $0[key] ?? Count() }
            return json(#"{"served":\#(count.served),"maxInFlight":\#(count.maxInFlight)}"#)
        }
    }
}
