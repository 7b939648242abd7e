import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers

/// What DemoServer's conformance routes send, for clients to check what they received.
public enum ConformanceFixtures {
    /// The text every `/encoded` body decodes to: `size` bytes of JSON-like lines.
    public static func text(size: Int) -> [UInt8] {
        let line = Array(#"{"id":12345,"name":"conformance","tags":["gzip","deflate","br"],"ok":true}"#.utf8) + [10]
        var text = [UInt8]()
        text.reserveCapacity(size)
        while text.count < size {
            text += line.prefix(size - text.count)
        }
        return text
    }

    /// The value of header `x-demo-{index}` of `/headers/many`.
    public static func headerValue(_ index: Int) -> String {
        "value-\(index)-" + String(repeating: "abcdefghij", count: 8)
    }
}

extension DemoRoutes {
    /// Encoded bodies, redirects with any status and loops, a chunked body and many headers:
    /// the HTTP conformance cases both engines are tested against (`Docs/engines.md`).
    static func addConformanceRoutes(to router: Router<BasicRequestContext>) {
        // `ConformanceFixtures.text(size:)` in `coding` (gzip, deflate, br, zstd; identity or any other name:
        // the plain bytes, labelled with that name). `?chunked=1` streams it without a length.
        router.get("encoded/{coding}") { request, context in
            let coding = try context.parameters.require("coding")
            let size = min(max(request.uri.queryParameters.get("size", as: Int.self) ?? 4_096, 0), 8 << 20)
            let body = await cached("\(coding)-\(size)") {
                let text = ConformanceFixtures.text(size: size)
                return ContentEncoder.Coding(rawValue: coding).map { ContentEncoder.encode(text, as: $0) } ?? text
            }
            return encoded(body, coding: coding, chunked: request.uri.queryParameters["chunked"] == "1")
        }

        // `size` zero bytes (8 MiB by default) gzip- or deflate-encoded at about 160:1.
        router.get("encoded-bomb/{coding}") { request, context in
            let name = try context.parameters.require("coding")
            guard let coding = ContentEncoder.Coding(rawValue: name), coding == .gzip || coding == .deflate else {
                throw HTTPError(.badRequest, message: "gzip or deflate")
            }
            let size = min(max(request.uri.queryParameters.get("size", as: Int.self) ?? 8 << 20, 0), 256 << 20)
            let body = await cached("bomb-\(name)-\(size)") { ContentEncoder.zeros(size, as: coding) }
            return encoded(body, coding: name, chunked: request.uri.queryParameters["chunked"] == "1")
        }

        // A gzip header followed by bytes that are no deflate stream.
        router.get("encoded-corrupt") { _, _ in
            encoded([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff] + [UInt8](repeating: 0xff, count: 64), coding: "gzip", chunked: false)
        }

        // `/redirect/{code}?to=PATH`: that 3xx status to PATH (relative or absolute), any method.
        for method in [HTTPRequest.Method.get, .head, .post, .put, .patch, .delete] {
            router.on("redirect/{code}", method: method) { request, context in
                let code = context.parameters.get("code", as: Int.self) ?? 302
                guard (300...399).contains(code), let target = request.uri.queryParameters["to"].map(String.init) else {
                    throw HTTPError(.badRequest, message: "redirect/{300...399}?to=PATH")
                }
                // Drain the body: the client may send one with any method.
                _ = try await request.body.collect(upTo: 16 << 20)
                return Response(status: .init(code: code), headers: [.location: target])
            }
        }

        // A redirect to itself: a cycle.
        router.get("redirect-loop") { _, _ in
            Response(status: .found, headers: [.location: "/redirect-loop"])
        }

        // `/redirect-chain/{n}` redirects to `/redirect-chain/{n+1}`: endless, never a cycle.
        router.get("redirect-chain/{step}") { _, context in
            let step = context.parameters.get("step", as: Int.self) ?? 0
            return Response(status: .found, headers: [.location: "/redirect-chain/\(step + 1)"])
        }

        // The payload of `size` bytes in chunked transfer coding (no Content-Length).
        router.get("chunked/{size}") { _, context in
            let size = min(max(context.parameters.get("size", as: Int.self) ?? 4_096, 0), 64 << 20)
            let body = ResponseBody { writer in
                try await writePayload(first: 0, length: size, rate: nil, limit: size, to: &writer)
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: body)
        }

        // `count` response headers `x-demo-{i}: value-{i}-…` (about 100 bytes each).
        router.get("headers/many") { request, _ in
            let count = min(max(request.uri.queryParameters.get("count", as: Int.self) ?? 100, 0), 1_000)
            var fields = HTTPFields()
            for index in 0..<count {
                guard let name = HTTPField.Name("x-demo-\(index)") else { continue }
                fields.append(HTTPField(name: name, value: ConformanceFixtures.headerValue(index)))
            }
            return json(#"{"headers":\#(count)}"#, headers: fields)
        }
    }

    /// Encoded bodies already made, by coding and size (the bombs take a moment to make).
    private static let encodedBodies = NIOLockedValueBox([String: [UInt8]]())

    /// The encoded body for `key`, made once per process on a dispatch thread: encoding megabytes
    /// in a debug build takes a second, which must not hold up a cooperative thread (the test
    /// process has two, and every other request of the server needs them).
    private static func cached(_ key: String, _ make: @escaping @Sendable () -> [UInt8]) async -> [UInt8] {
        if let hit = encodedBodies.withLockedValue({ $0[key] }) { return hit }
        let made = await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8], Never>) in
            DispatchQueue.global().async { continuation.resume(returning: make()) }
        }
        encodedBodies.withLockedValue { $0[key] = made }
        return made
    }

    private static func encoded(_ body: [UInt8], coding: String, chunked: Bool) -> Response {
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8"]
        if coding != "identity" { headers[.contentEncoding] = coding }
        guard chunked else {
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }
        let stream = ResponseBody { writer in
            var offset = 0
            while offset < body.count {
                let end = min(offset + 16_384, body.count)
                try await writer.write(ByteBuffer(bytes: body[offset..<end]))
                offset = end
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: stream)
    }
}
