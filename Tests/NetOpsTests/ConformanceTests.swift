import DemoServer
import Foundation
import TestSupport
import Testing

@testable import NetOps

/// The HTTP client conformance cases (`Docs/engines.md` lists each with its outcome): every
/// case runs on both engines against DemoServer, and on the NIO engine over TLS with HTTP/2
/// (`ConformanceTarget`), and must end the same way on all three — the same body, the same final
/// method, the same `NetOpsError` kind. Where the engines cannot match (what
/// each one decodes), the case asserts each engine's documented outcome.
@Suite(.timeLimit(.minutes(2)))
struct ConformanceTests {
    struct Echo: Decodable {
        let method: String
        let path: String
        let query: [String: String]
        let headers: [String: String]
        let bodyLength: Int
        let body: String
    }

    /// The codings each engine decodes, and so offers in `Accept-Encoding`: libcurl's (this
    /// machine's 7.88.1 has zlib, brotli and zstd) and AsyncHTTPClient's.
    static func decodable(on engine: ConformanceTarget) -> Set<String> {
        engine == .urlSessionHTTP1 ? ["gzip", "deflate", "br", "zstd"] : ["gzip", "deflate"]
    }

    static func run(_ operation: BaseOperation) async -> BaseOperation {
        _ = try? await operation.run()
        return operation
    }

    /// The code of a `.transport` failure, nil for any other outcome.
    static func transportCode(_ operation: BaseOperation) -> Int? {
        if case let .transport(code, _) = operation.error?.kind { return code }
        return nil
    }

    // MARK: Content codings

    @Test(arguments: ConformanceTarget.runnable, [false, true])
    func gzipAndDeflateBodiesAreDecoded(_ engine: ConformanceTarget, chunked: Bool) async throws {
        for coding in ["gzip", "deflate"] {
            // 2 bytes encode to more than 2: the decoded body is shorter than the encoded one.
            for size in [2, 100_000] {
                let url = try await engine.url("encoded/\(coding)?size=\(size)\(chunked ? "&chunked=1" : "")")
                let operation = try await DTO.get(url).on(engine).run()
                #expect(operation.receivedData == Data(ConformanceFixtures.text(size: size)), "\(coding), \(size) bytes")
                #expect(operation.response?.value(forHTTPHeaderField: "Content-Encoding") == coding)
                #expect(operation.response?.value(forHTTPHeaderField: "Content-Length") == nil, "it counts the encoded bytes")
            }
        }
    }

    @Test(arguments: ConformanceTarget.runnable)
    func acceptEncodingOffersExactlyWhatTheEngineDecodes(_ engine: ConformanceTarget) async throws {
        let echo = try await DTO.get(engine.url("echo")).on(engine).run().decode(Echo.self)
        let offered = Set((echo.headers["accept-encoding"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(offered == Self.decodable(on: engine))
        for coding in offered {
            let operation = try await DTO.get(engine.url("encoded/\(coding)?size=10000")).on(engine).run()
            #expect(operation.receivedData == Data(ConformanceFixtures.text(size: 10_000)), "\(coding)")
        }
    }

    /// Brotli and zstd: decoded by libcurl; AsyncHTTPClient cannot, and the body fails clearly
    /// instead of reaching the operation still encoded.
    @Test(arguments: ConformanceTarget.runnable, ["br", "zstd"])
    func brotliAndZstandard(_ engine: ConformanceTarget, coding: String) async throws {
        let operation = await Self.run(DTO.get(try await engine.url("encoded/\(coding)?size=10000")).on(engine))
        if Self.decodable(on: engine).contains(coding) {
            #expect(operation.state == .successFinished)
            #expect(operation.receivedData == Data(ConformanceFixtures.text(size: 10_000)))
        } else {
            #expect(operation.state == .failedFinished)
            #expect(Self.transportCode(operation) == ContentDecoding.failureCode)
            #expect(operation.error?.description.contains("'\(coding)'") == true)
            #expect(operation.receivedData.isEmpty)
        }
    }

    @Test(arguments: ConformanceTarget.runnable)
    func aCodingNoEngineDecodesFailsClearly(_ engine: ConformanceTarget) async throws {
        let operation = await Self.run(DTO.get(try await engine.url("encoded/x-foo?size=1000")).on(engine))
        #expect(operation.state == .failedFinished)
        #expect(Self.transportCode(operation) == ContentDecoding.failureCode)
        #expect(operation.error?.description.contains("'x-foo'") == true)
        #expect(operation.receivedData.isEmpty)
    }

    @Test(arguments: ConformanceTarget.runnable, ["gzip", "deflate"])
    func decompressionBombFailsCleanly(_ engine: ConformanceTarget, coding: String) async throws {
        // 8 MiB of zeros in about 52 KB: past the limit of 100 times the encoded size.
        let operation = await Self.run(DTO.get(try await engine.url("encoded-bomb/\(coding)?size=\(8 << 20)")).on(engine))
        #expect(operation.state == .failedFinished)
        #expect(Self.transportCode(operation) == ContentDecoding.failureCode)
        #expect(operation.error?.description.contains("decompression bomb") == true)
        #expect(operation.receivedData.isEmpty)
    }

    /// A URLSession session whose engine stops decoding a chunked body at 4 MiB (the default,
    /// 64 MiB, would keep FoundationNetworking's one queue busy for seconds).
    static let smallCapSession = NetworkSession(
        engine: URLSessionEngine(configuration: NetworkSession.defaultConfiguration(), unannouncedDecodedLimit: 4 << 20))

    /// Chunked, the encoded size is not announced: AsyncHTTPClient still compares with the bytes
    /// it read; the URLSession engine cannot see them and stops at a fixed size
    /// (`ContentDecoding.unannouncedLimit`, here a smaller one).
    @Test(arguments: ConformanceTarget.runnable)
    func chunkedDecompressionBombFailsCleanly(_ engine: ConformanceTarget) async throws {
        let operation = DTO.get(try await engine.url("encoded-bomb/deflate?size=\(8 << 20)&chunked=1")).on(engine)
        if engine == .urlSessionHTTP1 { operation.privateSession = Self.smallCapSession }
        _ = await Self.run(operation)
        #expect(operation.state == .failedFinished)
        #expect(Self.transportCode(operation) == ContentDecoding.failureCode)
        #expect(operation.error?.description.contains("decompression bomb") == true)
        #expect(operation.receivedData.isEmpty)
    }

    @Test(arguments: ConformanceTarget.runnable)
    func corruptGzipFailsClearly(_ engine: ConformanceTarget) async throws {
        let operation = await Self.run(DTO.get(try await engine.url("encoded-corrupt")).on(engine))
        #expect(operation.state == .failedFinished)
        #expect(Self.transportCode(operation) == ContentDecoding.failureCode)
        #expect(operation.receivedData.isEmpty)
    }

    // MARK: Redirects

    /// A form POST answered with a redirect: 301, 302 and 303 become a GET without a body (and
    /// without the body's `Content-Type`); 307 and 308 send the same method and body again.
    @Test(arguments: ConformanceTarget.runnable, [301, 302, 303, 307, 308])
    func formPostRedirect(_ engine: ConformanceTarget, status: Int) async throws {
        let parameters: Parameters = ["name": "Zoë & co", "count": 3]
        let url = try await engine.url("redirect/\(status)?to=/echo")
        let operation = try await DTO.post(url, parameters: parameters, encoding: .form).on(engine).run()
        let echo = try operation.decode(Echo.self)
        #expect(echo.path == "/echo")
        #expect(operation.response?.url?.path == "/echo")
        if status == 307 || status == 308 {
            #expect(echo.method == "POST")
            #expect(echo.body == RequestFactory.formEncoded(parameters))
            #expect(echo.headers["content-type"]?.hasPrefix("application/x-www-form-urlencoded") == true)
        } else {
            #expect(echo.method == "GET")
            #expect(echo.bodyLength == 0)
            #expect(echo.headers["content-type"] == nil)
        }
    }

    /// Other methods keep method and body on every redirect but 303.
    @Test(arguments: ConformanceTarget.runnable, [301, 302, 303, 307, 308])
    func putRedirect(_ engine: ConformanceTarget, status: Int) async throws {
        let url = try await engine.url("redirect/\(status)?to=/echo")
        let operation = try await DTO.put(url, parameters: ["title": "東京"]).on(engine).run()
        let echo = try operation.decode(Echo.self)
        if status == 303 {
            #expect(echo.method == "GET")
            #expect(echo.bodyLength == 0)
        } else {
            #expect(echo.method == "PUT")
            #expect(echo.body == #"{"title":"東京"}"#)
        }
    }

    /// An upload's body, from memory or streamed from a file, is sent again after a 307 or 308.
    @Test(arguments: ConformanceTarget.runnable, [307, 308])
    func uploadRedirectKeepsTheBody(_ engine: ConformanceTarget, status: Int) async throws {
        struct Received: Decodable {
            let length: Int
            let sha256: String
        }
        let payload = DemoPayload.data(size: 300_000)
        let url = try await engine.url("redirect/\(status)?to=/upload")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("netops-\(UUID().uuidString)")
        try payload.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        for operation in [UO.upload(payload, to: url), UO.upload(fileAt: file, to: url)] {
            try await operation.on(engine).run()
            let received = try operation.decode(Received.self)
            #expect(received.length == payload.count)
            #expect(received.sha256 == sha256(payload))
            #expect(operation.response?.url?.path == "/upload")
        }
    }

    @Test(arguments: ConformanceTarget.runnable, ["redirect-loop", "redirect-chain/0"])
    func redirectLoopEndsWithAClearError(_ engine: ConformanceTarget, path: String) async throws {
        let operation = await Self.run(DTO.get(try await engine.url(path)).on(engine))
        #expect(operation.state == .failedFinished)
        #expect(Self.transportCode(operation) == -1007)
        #expect(operation.error?.description.contains("redirect") == true)
    }

    // MARK: Bodies and headers

    @Test(arguments: ConformanceTarget.runnable)
    func chunkedBody(_ engine: ConformanceTarget) async throws {
        let operation = try await DTO.get(engine.url("chunked/300000")).on(engine).run()
        #expect(operation.responseHead?.httpVersion == engine.expectedHTTPVersion)
        #expect(operation.receivedData == DemoPayload.data(size: 300_000))
        #expect(operation.response?.value(forHTTPHeaderField: "Content-Length") == nil)
    }

    /// 200 response fields of about 100 bytes: over HTTP/1.1 well under NIO's 80 KiB head. Over
    /// HTTP/2 AsyncHTTPClient advertises a header list of at most 16 KiB (HPACK's count: name,
    /// value and 32 bytes per field, NIO's default, not configurable), so the NIO engine gets 100
    /// of them, and 200 end the operation as `connectionLost` with HTTP/2's reason (or by its
    /// idle timeout: see below).
    @Test(arguments: ConformanceTarget.runnable)
    func largeHeaderSets(_ engine: ConformanceTarget) async throws {
        let count = engine == .nioHTTP2 ? 100 : 200
        if engine == .nioHTTP2 {
            // The client's NIOHTTP2 closes the connection with PROTOCOL_ERROR. AsyncHTTPClient
            // then fails the request with the stream's closing — or, seen under ThreadSanitizer,
            // never tells the request at all, and the operation's idle timeout ends it.
            //
            // When the connection survives, its HPACK tables no longer agree: the client stopped
            // decoding the oversized block, so the entries the server added to its dynamic table
            // are missing from the client's, and the next responses on that connection read other
            // fields (a later `/json` came back with `x-demo-122…` instead of its
            // `content-type`; the defect netty fixed in its #6209). So this case runs on a
            // session of its own, and the next request on it is checked as a known issue.
            let isolated = try await HTTP2TestServer.isolatedSession()
            defer { Task { try? await isolated.shutdown() } }
            let operation = DTO.get(try await engine.url("headers/many?count=200"))
            operation.privateSession = isolated
            operation.idleTimeout = 3
            let refused = await Self.run(operation)
            let kind = refused.error?.kind.name
            #expect(kind == "connectionLost" || kind == "idleTimeout", "\(String(describing: refused.error))")
            if kind == "connectionLost" { #expect(refused.error?.description.contains("HTTP/2") == true) }
            let after = DTO.get(try await engine.url("json"))
            after.privateSession = isolated
            after.idleTimeout = 3
            _ = await Self.run(after)
            withKnownIssue("swift-nio-http2: an oversized header block leaves the connection's HPACK tables out of step", isIntermittent: true) {
                #expect(
                    after.response?.value(forHTTPHeaderField: "Content-Type") == "application/json; charset=utf-8",
                    "status \(String(describing: after.response?.statusCode)), fields \((after.response?.allHeaderFields.keys).map { Array($0) } ?? []), error \(String(describing: after.error))"
                )
            }
        }
        let received = try await DTO.get(engine.url("headers/many?count=\(count)")).on(engine).run()
        for index in 0..<count {
            #expect(received.response?.value(forHTTPHeaderField: "x-demo-\(index)") == ConformanceFixtures.headerValue(index))
        }
        var headers: [String: String] = [:]
        for index in 0..<100 { headers["X-Sent-\(index)"] = ConformanceFixtures.headerValue(index) }
        let echo = try await DTO.get(engine.url("echo"), headers: headers).on(engine).run().decode(Echo.self)
        for index in 0..<100 {
            #expect(echo.headers["x-sent-\(index)"] == ConformanceFixtures.headerValue(index))
        }
    }

    @Test(arguments: ConformanceTarget.runnable)
    func unicodeInQueryAndForm(_ engine: ConformanceTarget) async throws {
        let text = "Grüße, 東京 😀 a+b&c=d/é?"
        let echoURL = try await engine.url("echo")
        let query = try await DTO.get(echoURL, parameters: ["q": text]).on(engine).run().decode(Echo.self)
        #expect(query.query["q"] == text)
        let form = try await DTO.post(echoURL, parameters: ["q": text], encoding: .form).on(engine).run().decode(Echo.self)
        #expect(form.body == RequestFactory.formEncoded(["q": text]))
        #expect(form.body.removingPercentEncoding?.contains("東京 😀") == true)
    }

    @Test(arguments: ConformanceTarget.runnable)
    func unauthorizedWithChallenge(_ engine: ConformanceTarget) async throws {
        let operation = await Self.run(DTO.get(try await engine.url("auth/challenge")).on(engine))
        #expect(operation.error?.kind == .httpStatus(401))
        #expect(operation.response?.value(forHTTPHeaderField: "WWW-Authenticate") == #"Basic realm="demo""#)
        #expect(String(decoding: operation.receivedData, as: UTF8.self).contains("unauthorized"))
    }
}
