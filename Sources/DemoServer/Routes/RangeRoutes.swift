import Foundation
import Hummingbird
import NIOConcurrencyHelpers

extension DemoPayload {
    /// How far apart the versions of a `/ranges` resource are in the payload pattern: version `v`
    /// of a resource of `size` bytes is `DemoPayload.bytes(offset: v * versionShift, length: size)`.
    public static let versionShift = 1_000
}

extension DemoRoutes {

    /// What the `/ranges` routes remember per `key`.
    struct RangeResource {
        /// Requests answered so far.
        var requests = 0
        /// True once the one connection drop of `dropAt` happened.
        var dropped = false
        /// Each request's `Range` header ("" without one) and the status it got.
        var log: [(range: String, status: Int)] = []
    }

    /// `/ranges/{size}`: the payload of `/bytes`, with faults a segmented download must survive,
    /// keyed by `?key=` so that tests running at once do not share state.
    ///
    /// - `validator=etag|modified|none`: which validator the resource has (default `etag`);
    /// - `changeAfter=K`: from the request after the K-th on, the resource is version 1 (other
    ///   bytes, another ETag and Last-Modified);
    /// - `dropAt=X`: the first request whose body covers byte X sends the bytes before X, then
    ///   drops the connection;
    /// - `rate=B`: bytes per second;
    /// - `strictRanges=1`: a range whose last byte lies past the body is answered 416 (as
    ///   httpbin's `/range/N` does) instead of being shortened to the body (RFC 9110 §14.1.2).
    ///
    /// `/ranges-log/{key}` answers `{"requests":[{"range":"bytes=0-99","status":206},…]}`.
    static func addRangeRoutes(to router: Router<BasicRequestContext>) {
        let resources = NIOLockedValueBox<[String: RangeResource]>([:])

        router.get("ranges/{size}") { request, context in
            guard let size = context.parameters.get("size", as: Int.self), (0...(8 << 30)).contains(size) else {
                throw HTTPError(.badRequest, message: "size must be 0...8 GiB")
            }
            let query = request.uri.queryParameters
            let key = query.get("key") ?? ""
            let changeAfter = query.get("changeAfter", as: Int.self)
            let dropAt = query.get("dropAt", as: Int.self)
            let rate = query.get("rate", as: Int.self)
            let count = resources.withLockedValue { resources -> Int in
                resources[key, default: RangeResource()].requests += 1
                return resources[key, default: RangeResource()].requests
            }
            let version = changeAfter.map { count > $0 ? 1 : 0 } ?? 0
            let etag = #""ranges-\#(size)-v\#(version)""#
            let modified = version == 0 ? lastModified : "Sun, 02 Nov 2025 00:00:00 GMT"
            var headers: HTTPFields = [.acceptRanges: "bytes"]
            var current: [String] = []
            switch query.get("validator") ?? "etag" {
            case "none":
                break
            case "modified":
                headers[.lastModified] = modified
                current = [modified]
            default:
                headers[.eTag] = etag
                current = [etag]
            }

            var first = 0
            var length = size
            var status = HTTPResponse.Status.ok
            let rangeHeader = request.headers[.range]
            let validatorMatches = request.headers[.ifRange].map { current.contains($0) } ?? true
            if let rangeHeader, validatorMatches {
                if query.get("strictRanges") == "1", let end = explicitRangeEnd(rangeHeader), end >= size {
                    resources.withLockedValue { $0[key]?.log.append((rangeHeader, 416)) }
                    return Response(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(size)"])
                }
                do {
                    if let range = try ByteRange.parse(rangeHeader, size: size) {
                        first = range.first
                        length = range.length
                        status = .partialContent
                        headers[.contentRange] = "bytes \(range.first)-\(range.last)/\(size)"
                    }
                } catch {
                    resources.withLockedValue { $0[key]?.log.append((rangeHeader, 416)) }
                    return Response(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(size)"])
                }
            }
            resources.withLockedValue { $0[key]?.log.append((rangeHeader ?? "", Int(status.code))) }

            let shift = version * DemoPayload.versionShift
            let drop = dropAt.flatMap { at -> Int? in
                guard at >= first, at < first + length else { return nil }
                return resources.withLockedValue { resources -> Int? in
                    guard resources[key]?.dropped == false else { return nil }
                    resources[key]?.dropped = true
                    return at - first
                }
            }
            guard let drop else {
                return payload(first: shift + first, length: length, rate: rate, status: status, headers: headers)
            }
            headers[.contentType] = "application/octet-stream"
            let (start, bodyLength) = (shift + first, length)
            let body = ResponseBody(contentLength: bodyLength) { writer in
                try await writePayload(first: start, length: bodyLength, rate: rate, limit: drop, to: &writer)
                throw ConnectionDropped()
            }
            return Response(status: status, headers: headers, body: body)
        }

        router.get("ranges-log/{key}") { _, context in
            let key = try context.parameters.require("key")
            let log = resources.withLockedValue { $0[key]?.log ?? [] }
            let entries = log.map { #"{"range":\#(quoted($0.range)),"status":\#($0.status)}"# }
            return json(#"{"requests":[\#(entries.joined(separator: ","))]}"#)
        }
    }

    /// The last byte of a `bytes=first-last` header, nil for any other form.
    static func explicitRangeEnd(_ header: String) -> Int? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let bounds = header.dropFirst("bytes=".count).split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, Int(bounds[0]) != nil else { return nil }
        return Int(bounds[1])
    }
}
