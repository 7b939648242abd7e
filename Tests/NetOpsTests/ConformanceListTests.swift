import DemoServer
import Foundation
import NetOpsNIO
import TestSupport
import Testing

@testable import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The cases of swift-http-api-proposal's client conformance list that `ConformanceTests`,
/// `ConformanceFaultTests`, `HTTPCacheTests` and `CookieJarTests` do not cover already: odd
/// status lines, framing without a body, trailers, repeated and empty header fields, query
/// parameters, a 1 MB echo, reading part of a body, a dripping body, a burst of requests, and
/// cookies set and sent back. Docs/engines.md lists all 39 cases with the test of each.
@Suite(.timeLimit(.minutes(3)))
struct ConformanceListTests {
    static func raw(_ route: RawHTTPServer.Route, on engine: TestEngine) async throws -> DTO {
        let operation = DTO.get(try await RawHTTPServer.get().url(route, query: "?case=\(UUID().uuidString)")).on(engine)
        operation.retryPolicy = RetryPolicy.none
        operation.idleTimeout = 20
        return operation
    }

    static func run(_ operation: BaseOperation) async -> BaseOperation {
        _ = try? await operation.run()
        return operation
    }

    /// What DemoServer's `/echo` saw.
    struct Echo: Decodable {
        let method: String
        let query: [String: String]
        let headers: [String: String]
        let bodyLength: Int
        let body: String
    }

    static func echo(_ operation: DTO) throws -> Echo {
        try JSONDecoder().decode(Echo.self, from: operation.receivedData)
    }

    // MARK: Status lines

    /// An answer that is not HTTP (`FOOBAR`, then a close). Only the NIO engine is asked:
    /// FoundationNetworking (swift-corelibs-foundation 6.3) refuses it as HTTP/0.9, or, as
    /// this test once saw, stops the whole process on it ("Transfer completed, but there's no
    /// response", NativeProtocol.swift:240), which no delegate can catch. Docs/engines.md says so: a service that calls servers it does not
    /// trust uses the NIO engine.
    @Test func anAnswerThatIsNotHTTPFails() async throws {
        let operation = await Self.run(try await Self.raw(.notHTTP, on: .nio))
        #expect(operation.state == .failedFinished)
        let kind = try #require(operation.error?.kind)
        switch kind {
        case .connectionLost, .transport: break
        default: Issue.record("not HTTP: \(kind)")
        }
    }

    /// `Http/1.1 200 OK`: the NIO engine refuses it (the version is case-sensitive, RFC 9112
    /// §2.3); libcurl reads it case-insensitively, so the URLSession engine accepts it.
    @Test(arguments: TestEngine.allCases) func aStatusLineSpelledInTheWrongCase(_ engine: TestEngine) async throws {
        let operation = await Self.run(try await Self.raw(.badHTTPCase, on: engine))
        switch engine {
        case .urlSession:
            #expect(operation.state == .successFinished)
            #expect(operation.statusCode == 200)
        case .nio:
            #expect(operation.state == .failedFinished)
            let kind = try #require(operation.error?.kind)
            switch kind {
            case .connectionLost, .transport: break
            default: Issue.record("Http/1.1 on the NIO engine: \(kind)")
            }
        }
    }

    /// `HTTP/1.1 200` without a reason phrase (which RFC 9112 §4 allows): the NIO engine reads
    /// it; FoundationNetworking's header parser does not, and the URLSession engine's operation
    /// fails without a response.
    @Test(arguments: TestEngine.allCases) func aStatusLineWithoutAReason(_ engine: TestEngine) async throws {
        let operation = await Self.run(try await Self.raw(.noReason, on: engine))
        switch engine {
        case .nio:
            #expect(operation.state == .successFinished)
            #expect(operation.statusCode == 200)
            #expect(operation.receivedData == Data("ok".utf8))
        case .urlSession:
            #expect(operation.state == .failedFinished)
            #expect(operation.statusCode == nil)
            // libcurl's "Failed writing header": FoundationNetworking's header callback refused the line.
            guard case let .transport(code, _) = operation.error?.kind else {
                Issue.record("no reason on URLSession: \(String(describing: operation.error))")
                return
            }
            #expect(code == -1)
        }
    }

    @Test(arguments: TestEngine.allCases) func aStatusOutsideEveryClassIsReadAsIs(_ engine: TestEngine) async throws {
        let operation = try await Self.raw(.status999, on: engine)
        operation.acceptableStatusCodes = [999]
        _ = await Self.run(operation)
        #expect(operation.state == .successFinished)
        #expect(operation.statusCode == 999)
        #expect(operation.receivedData.isEmpty)
    }

    @Test(arguments: ConformanceTarget.runnable) func aNotFoundKeepsItsStatusAndBody(_ engine: ConformanceTarget) async throws {
        let operation = await Self.run(DTO.get(try await engine.url("status/404")).on(engine))
        #expect(operation.error?.httpStatus == 404)
        #expect(operation.statusCode == 404)
        #expect(!operation.receivedData.isEmpty)
    }

    // MARK: Framing

    @Test(arguments: TestEngine.allCases) func a204ThatAnnouncesALengthHasNoBody(_ engine: TestEngine) async throws {
        let operation = await Self.run(try await Self.raw(.noContentWithLength, on: engine))
        #expect(operation.state == .successFinished)
        #expect(operation.statusCode == 204)
        #expect(operation.receivedData.isEmpty)
    }

    @Test(arguments: TestEngine.allCases) func aBodyWithoutALengthEndsWithTheConnection(_ engine: TestEngine) async throws {
        let operation = await Self.run(try await Self.raw(.noLengthHint, on: engine))
        #expect(operation.state == .successFinished)
        #expect(operation.receivedData == Data("0123456789".utf8))
    }

    @Test(arguments: ConformanceTarget.runnable) func anIdentityBodyArrivesAsSent(_ engine: ConformanceTarget) async throws {
        let operation = DTO.get(try await engine.url("encoded/identity?size=5000")).on(engine)
        try await operation.run()
        #expect(operation.receivedData == Data(ConformanceFixtures.text(size: 5000)))
    }

    @Test(arguments: TestEngine.allCases) func anEmptyChunkedBodyIsEmpty(_ engine: TestEngine) async throws {
        let operation = await Self.run(try await Self.raw(.emptyChunked, on: engine))
        #expect(operation.state == .successFinished)
        #expect(operation.receivedData.isEmpty)
    }

    /// Trailer fields after a chunked body: the body arrives whole and the operation succeeds;
    /// the NIO engine's events carry no trailers, so none is handed over. Only the NIO engine
    /// is asked: FoundationNetworking stops the whole process on a trailer ("Transfer
    /// completed, but there's no response", NativeProtocol.swift:240).
    @Test func trailersAfterAChunkedBodyLeaveTheBodyWhole() async throws {
        let operation = await Self.run(try await Self.raw(.trailers, on: .nio))
        #expect(operation.state == .successFinished)
        #expect(operation.receivedData == Data("0123456789".utf8))
        #expect(operation.responseHeaders["X-Checksum"] == nil)
    }

    // MARK: Header fields

    @Test(arguments: TestEngine.allCases) func aFieldTheServerRepeatsReadsAsAList(_ engine: TestEngine) async throws {
        let operation = await Self.run(try await Self.raw(.multiValueHeader, on: engine))
        #expect(operation.state == .successFinished)
        let value = try #require(operation.response?.value(forHTTPHeaderField: "X-Test"))
        #expect(value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } == ["one", "two"])
    }

    @Test(arguments: ConformanceTarget.runnable) func aFieldTheClientRepeatsArrivesAsAList(_ engine: ConformanceTarget) async throws {
        var request = URLRequest(url: try await engine.url("echo"))
        request.addValue("one", forHTTPHeaderField: "X-Test")
        request.addValue("two", forHTTPHeaderField: "X-Test")
        let operation = DTO(request: request).on(engine)
        try await operation.run()
        let value = try #require(try Self.echo(operation).headers["x-test"])
        #expect(value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } == ["one", "two"])
    }

    @Test(arguments: ConformanceTarget.runnable) func aFieldWithAnEmptyValueIsSent(_ engine: ConformanceTarget) async throws {
        let operation = DTO.get(try await engine.url("echo"), headers: ["X-Empty": ""]).on(engine)
        try await operation.run()
        #expect(try Self.echo(operation).headers["x-empty"] == "")
    }

    // MARK: Bodies and parameters

    @Test(arguments: ConformanceTarget.runnable) func queryParametersArriveAsSent(_ engine: ConformanceTarget) async throws {
        let parameters: [String: String] = ["plain": "1", "spaced": "two words", "symbols": "a&b=c?d/e", "unicode": "héllo ✓"]
        let operation = DTO.get(try await engine.url("echo"), parameters: parameters).on(engine)
        try await operation.run()
        #expect(try Self.echo(operation).query == parameters)
    }

    @Test(arguments: ConformanceTarget.runnable) func aMegabyteIsEchoedWhole(_ engine: ConformanceTarget) async throws {
        var request = URLRequest(url: try await engine.url("echo"))
        request.httpMethod = "POST"
        request.httpBody = Data(repeating: UInt8(ascii: "A"), count: 1_000_000)
        let operation = DTO(request: request).on(engine)
        try await operation.run()
        let echo = try Self.echo(operation)
        #expect(echo.method == "POST")
        #expect(echo.bodyLength == 1_000_000)
        #expect(echo.body == String(repeating: "A", count: 1_000_000))
    }

    /// The proposal's under-read: the caller wants the first bytes of a long body only. Here
    /// that is a cancel once the first bytes arrived: the operation ends cancelled, no hang.
    @Test(arguments: ConformanceTarget.runnable) func stoppingAfterTheFirstBytesEndsTheOperation(_ engine: ConformanceTarget) async throws {
        let operation = DTO.get(try await engine.url("bytes/1000000?rate=200000")).on(engine)
        // Cancelled where the first bytes arrive: a test task on a loaded machine can come late.
        whenBodies(of: [operation], reach: 1) { [weak operation] in operation?.cancel() }
        operation.start()
        await operation.finished()
        #expect(operation.state == .cancelled)
    }

    /// The proposal's drip read: a body that arrives a few bytes at a time arrives whole.
    @Test(arguments: ConformanceTarget.runnable) func aDrippingBodyArrivesWhole(_ engine: ConformanceTarget) async throws {
        let operation = DTO.get(try await engine.url("drip?bytes=300&interval=0.002")).on(engine)
        try await operation.run()
        #expect(operation.receivedData.count == 300)
    }

    @Test(arguments: TestEngine.allCases) func aBurstOfRequestsAllSucceed(_ engine: TestEngine) async throws {
        // 200 requests share 64 connections. AsyncHTTPClient fails a request that waits for a
        // connection longer than the connect timeout (10 s by default), and in a parallel test
        // run the in-process server answers slowly enough for that: the burst gets a minute.
        var configuration = NIOEngineConfiguration(concurrency: 64)
        configuration.connectTimeout = 60
        let session = engine == .nio ? NetworkSession.nio(configuration: configuration) : engine.makeSession()
        let operations = try await (0..<200).asyncMap { index in
            DTO.get(try await TestServer.url("echo"), parameters: ["n": "\(index)"]).on(session)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for operation in operations { group.addTask { try await operation.run() } }
            try await group.waitForAll()
        }
        for (index, operation) in operations.enumerated() {
            #expect(try Self.echo(operation).query["n"] == "\(index)")
        }
    }

    // MARK: Cookies

    @Test(arguments: ConformanceTarget.runnable) func aCookieSetIsSentBack(_ engine: ConformanceTarget) async throws {
        let jar = CookieJar()
        let set = DTO.get(try await engine.url("cookies/set"), parameters: ["cookie": "session=abc123; Path=/"]).on(engine)
        set.cookieJar = jar
        try await set.run()
        let echo = DTO.get(try await engine.url("echo")).on(engine)
        echo.cookieJar = jar
        try await echo.run()
        #expect(try Self.echo(echo).headers["cookie"] == "session=abc123")
    }
}

extension Sequence {
    /// The elements mapped one after another by an async `transform`.
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var mapped: [T] = []
        for element in self { mapped.append(try await transform(element)) }
        return mapped
    }
}
