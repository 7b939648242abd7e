import Foundation
import Hummingbird
import NIOConcurrencyHelpers

extension DemoRoutes {
    /// The ETag of the payload of `size` bytes.
    static func etag(size: Int) -> String { #""demo-\#(size)-v1""# }
    /// The Last-Modified date of every payload (fixed, so it can serve as a validator).
    static let lastModified = "Sat, 01 Nov 2025 00:00:00 GMT"

    /// Both periods of the payload pattern back to back: any chunk up to one period long is a slice of it.
    private static let doubledPattern = ByteBuffer(bytes: DemoPayload.pattern + DemoPayload.pattern)

    /// `/bytes/{size}` (ETag, Last-Modified, Range and If-Range) and `/norange/{size}` (always the whole body).
    ///
    /// Both take `?rate=` (bytes per second) to stream slowly enough for a client to pause mid-body.
    static func addPayloadRoutes(to router: Router<BasicRequestContext>, counters: NIOLockedValueBox<DemoServerStatistics>) {
        router.get("bytes/{size}") { request, context in
            let size = try payloadSize(context)
            let rate = request.uri.queryParameters.get("rate", as: Int.self)
            var headers: HTTPFields = [.eTag: etag(size: size), .lastModified: lastModified, .acceptRanges: "bytes"]
            guard let rangeHeader = request.headers[.range] else {
                return payload(first: 0, length: size, rate: rate, status: .ok, headers: headers)
            }
            counters.withLockedValue { $0.rangeRequests += 1 }
            if let validator = request.headers[.ifRange], validator != etag(size: size), validator != lastModified {
                return payload(first: 0, length: size, rate: rate, status: .ok, headers: headers)
            }
            do {
                guard let range = try ByteRange.parse(rangeHeader, size: size) else {
                    return payload(first: 0, length: size, rate: rate, status: .ok, headers: headers)
                }
                counters.withLockedValue { $0.partialResponses += 1 }
                headers[.contentRange] = "bytes \(range.first)-\(range.last)/\(size)"
                return payload(first: range.first, length: range.length, rate: rate, status: .partialContent, headers: headers)
            } catch {
                return Response(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(size)"])
            }
        }

        router.get("norange/{size}") { request, context in
            let size = try payloadSize(context)
            let rate = request.uri.queryParameters.get("rate", as: Int.self)
            return payload(first: 0, length: size, rate: rate, status: .ok, headers: [:])
        }
    }

    private static func payloadSize(_ context: BasicRequestContext) throws -> Int {
        guard let size = context.parameters.get("size", as: Int.self), (0...(8 << 30)).contains(size) else {
            throw HTTPError(.badRequest, message: "size must be 0...8 GiB")
        }
        return size
    }

    /// Streams `length` payload bytes from offset `first`, at `rate` bytes per second when given.
    static func payload(first: Int, length: Int, rate: Int?, status: HTTPResponse.Status, headers: HTTPFields) -> Response {
        var fields = headers
        fields[.contentType] = "application/octet-stream"
        let body = ResponseBody(contentLength: length) { writer in
            try await writePayload(first: first, length: length, rate: rate, limit: length, to: &writer)
            try await writer.finish(nil)
        }
        return Response(status: status, headers: fields, body: body)
    }

    /// Writes payload bytes `[first, first + min(length, limit))`, paced at `rate` bytes per second.
    static func writePayload(first: Int, length: Int, rate: Int?, limit: Int, to writer: inout any ResponseBodyWriter) async throws {
        let chunkSize = rate.map { max(1_024, min(64 * 1_024, $0 / 20)) } ?? 64 * 1_024
        let started = ContinuousClock.now
        var written = 0
        let total = min(length, limit)
        while written < total {
            let position = (first + written) % DemoPayload.period
            let count = min(chunkSize, total - written, DemoPayload.period)
            guard let chunk = doubledPattern.getSlice(at: position, length: count) else { break }
            try await writer.write(chunk)
            written += count
            if let rate, rate > 0 {
                try await Task.sleep(until: started + .seconds(Double(written) / Double(rate)), clock: .continuous)
            }
        }
    }
}
