import Foundation
import Hummingbird
import NIOConcurrencyHelpers

extension DemoRoutes {
    /// Routes for streamed bodies.
    ///
    /// - `GET /streamed/{key}/{size}`: the payload of `/bytes/{size}` (with `Range`, `If-Range`
    ///   and the same validators), counting per key the bytes the server's writer accepted;
    ///   `GET /streamed-stats/{key}` answers `{"written": bytes, "requests": count}`. A client
    ///   that reads slowly holds the writer back: `written` shows how far ahead it went.
    /// - `GET /events?count=N&interval=S&crlf=1`: `text/event-stream`, N events (`id: i`,
    ///   `event: tick`, two `data:` lines, a comment and a `retry:` on the first), S seconds
    ///   apart, lines ended by CRLF when `crlf=1`; a `Last-Event-ID` request header resumes
    ///   after that ID.
    /// - `GET /lines/{count}`: `application/x-ndjson`, `{"n":i}` lines, cut into chunks of
    ///   uneven sizes so that lines straddle them.
    static func addStreamRoutes(to router: Router<BasicRequestContext>) {
        struct Written {
            var bytes = 0
            var requests = 0
        }
        let written = NIOLockedValueBox<[String: Written]>([:])
        router.get("streamed/{key}/{size}") { request, context in
            let key = try context.parameters.require("key")
            guard let size = context.parameters.get("size", as: Int.self), (0...(8 << 30)).contains(size) else {
                throw HTTPError(.badRequest, message: "size must be 0...8 GiB")
            }
            written.withLockedValue { $0[key, default: Written()].requests += 1 }
            var headers: HTTPFields = [
                .eTag: etag(size: size), .lastModified: lastModified, .acceptRanges: "bytes", .contentType: "application/octet-stream",
            ]
            var first = 0
            var length = size
            var status = HTTPResponse.Status.ok
            if let rangeHeader = request.headers[.range], request.headers[.ifRange].map({ $0 == etag(size: size) }) ?? true {
                do {
                    if let range = try ByteRange.parse(rangeHeader, size: size) {
                        (first, length, status) = (range.first, range.length, .partialContent)
                        headers[.contentRange] = "bytes \(range.first)-\(range.last)/\(size)"
                    }
                } catch {
                    return Response(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(size)"])
                }
            }
            let body = ResponseBody(contentLength: length) { [first, length] writer in
                let pattern = ByteBuffer(bytes: DemoPayload.pattern + DemoPayload.pattern)
                var sent = 0
                while sent < length {
                    let count = min(64 << 10, length - sent)
                    guard let chunk = pattern.getSlice(at: (first + sent) % DemoPayload.period, length: count) else { break }
                    try await writer.write(chunk)
                    sent += count
                    written.withLockedValue { $0[key, default: Written()].bytes += count }
                }
                try await writer.finish(nil)
            }
            return Response(status: status, headers: headers, body: body)
        }
        router.get("streamed-stats/{key}") { _, context in
            let key = try context.parameters.require("key")
            let count = written.withLockedValue { $0[key] ?? Written() }
            return json(#"{"written":\#(count.bytes),"requests":\#(count.requests)}"#)
        }

        router.get("events") { request, _ in
            let query = request.uri.queryParameters
            let count = min(max(query.get("count", as: Int.self) ?? 5, 0), 100_000)
            let interval = min(max(query.get("interval", as: Double.self) ?? 0, 0), 10)
            let end = query.get("crlf", as: Int.self) == 1 ? "\r\n" : "\n"
            let resumeAfter = request.headers[.init("Last-Event-ID")!].flatMap { Int($0) } ?? 0
            let body = ResponseBody { writer in
                for id in (resumeAfter + 1)..<(count + 1) where id <= count {
                    var text = ""
                    if id == resumeAfter + 1 { text += ": the stream starts\(end)retry: 1500\(end)" }
                    text += "id: \(id)\(end)event: tick\(end)data: {\"n\":\(id)}\(end)data: line two\(end)\(end)"
                    try await writer.write(ByteBuffer(string: text))
                    if interval > 0 { try await Task.sleep(for: .seconds(interval)) }
                }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
        }

        router.get("lines/{count}") { _, context in
            let count = min(max(context.parameters.get("count", as: Int.self) ?? 10, 0), 1_000_000)
            let body = ResponseBody { writer in
                var pending = ByteBuffer()
                var cut = 1
                for index in 0..<count {
                    pending.writeString("{\"n\":\(index)}\n")
                    // Uneven pieces, 1 to 4 096 bytes: lines straddle the chunks.
                    cut = (cut * 1_103 + 17) % 4_096 + 1
                    if pending.readableBytes >= cut, let piece = pending.readSlice(length: cut) {
                        try await writer.write(piece)
                    }
                }
                if pending.readableBytes > 0 { try await writer.write(pending) }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: body)
        }
    }
}
