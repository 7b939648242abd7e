import DemoServer
import Foundation
import TestSupport
import Testing

@testable import NetOps

/// The conformance cases a well-behaved server never produces, against `RawHTTPServer`'s exact
/// bytes: answers without a body, broken framing, a server that closes or never reads, and
/// cancellation at each point. Same outcome on both engines; every operation ends (the idle
/// timeout is a backstop that would show up as a failed expectation, never a hang).
@Suite(.timeLimit(.minutes(5)))
struct ConformanceFaultTests {
    /// A GET of `route` with a query of its own, so the server's log tells this request apart.
    static func operation(_ route: RawHTTPServer.Route, method: HTTPMethod = .get, on engine: TestEngine) async throws -> (DTO, URL) {
        let url = try await RawHTTPServer.get().url(route, query: "?case=\(UUID().uuidString)")
        let operation = DTO.request(method, url).on(engine)
        operation.retryPolicy = RetryPolicy.none
        operation.idleTimeout = 20
        return (operation, url)
    }

    static func run(_ operation: BaseOperation) async -> BaseOperation {
        _ = try? await operation.run()
        return operation
    }

    // MARK: Answers without a body

    @Test(arguments: TestEngine.allCases)
    func headAnswerHasNoBody(_ engine: TestEngine) async throws {
        let (operation, _) = try await Self.operation(.headAnswer, method: .head, on: engine)
        try await operation.run()
        #expect(operation.statusCode == 200)
        #expect(operation.receivedData.isEmpty)
        #expect(operation.response?.value(forHTTPHeaderField: "Content-Length") == "1234")
    }

    @Test(arguments: TestEngine.allCases)
    func noContentHasNoBody(_ engine: TestEngine) async throws {
        let (operation, _) = try await Self.operation(.noContent, on: engine)
        try await operation.run()
        #expect(operation.statusCode == 204)
        #expect(operation.receivedData.isEmpty)
        #expect(operation.response?.value(forHTTPHeaderField: "X-Demo") == "empty")
    }

    /// A 304's `Content-Length` is the representation's: no body follows it.
    @Test(arguments: TestEngine.allCases)
    func notModifiedHasNoBody(_ engine: TestEngine) async throws {
        let (operation, _) = try await Self.operation(.notModified, on: engine)
        operation.acceptableStatusCodes = Set(200..<400)
        try await operation.run()
        #expect(operation.statusCode == 304)
        #expect(operation.receivedData.isEmpty)
        #expect(operation.response?.value(forHTTPHeaderField: "ETag") == #""demo""#)
    }

    // MARK: Broken framing and closed connections

    @Test(arguments: TestEngine.allCases)
    func serverClosesBeforeTheHeaders(_ engine: TestEngine) async throws {
        let (operation, _) = try await Self.operation(.closeBeforeHeaders, on: engine)
        _ = await Self.run(operation)
        #expect(operation.state == .failedFinished)
        guard case .connectionLost = operation.error?.kind else {
            Issue.record("expected connectionLost, got \(String(describing: operation.error))")
            return
        }
        #expect(operation.response == nil)
    }

    /// libcurl's texts, as FoundationNetworking passes them on with code -1, read as the NIO
    /// engine reads the same failures.
    @Test(arguments: [
        ("Empty reply from server", "connectionLost"), ("Connection died, tried 5 times before giving up", "connectionLost"),
        ("Recv failure: Connection reset by peer", "connectionLost"), ("SSL certificate problem: unable to get local issuer", "tls"),
        ("something else entirely", "other"),
    ])
    func curlsTextsAreReadAsTheNIOEngineReadsTheSameFailures(_ text: String, _ kind: String) {
        let error = URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: text])
        let read: String
        switch SessionDelegateRouter.failure(from: error) {
        case .connectionLost: read = "connectionLost"
        case .tls: read = "tls"
        case .other: read = "other"
        default: read = "something else"
        }
        #expect(read == kind, "\(text)")
    }

    @Test(arguments: TestEngine.allCases)
    func serverClosesMidBody(_ engine: TestEngine) async throws {
        let (operation, _) = try await Self.operation(.closeMidBody, on: engine)
        _ = await Self.run(operation)
        #expect(operation.error?.kind == .truncatedBody(expected: 100, received: 10))
    }

    @Test(arguments: TestEngine.allCases)
    func serverClosesMidChunkedBody(_ engine: TestEngine) async throws {
        let (operation, _) = try await Self.operation(.closeMidChunkedBody, on: engine)
        _ = await Self.run(operation)
        #expect(operation.state == .failedFinished)
        guard case .connectionLost = operation.error?.kind else {
            Issue.record("expected connectionLost, got \(String(describing: operation.error))")
            return
        }
        #expect(operation.receivedData.isEmpty)
    }

    @Test(arguments: TestEngine.allCases, [RawHTTPServer.Route.badContentLength, .conflictingContentLength, .malformedChunked])
    func brokenFramingFailsClearly(_ engine: TestEngine, route: RawHTTPServer.Route) async throws {
        let (operation, _) = try await Self.operation(route, on: engine)
        _ = await Self.run(operation)
        #expect(operation.state == .failedFinished)
        guard case .connectionLost = operation.error?.kind else {
            Issue.record("expected connectionLost, got \(String(describing: operation.error))")
            return
        }
        #expect(operation.receivedData.isEmpty)
    }

    // MARK: A server that never reads, cancellation

    /// The server reads the request head and nothing more: the upload stalls when the socket
    /// buffers are full, and the operation's idle timeout ends it.
    @Test(.processGate(.shared), arguments: TestEngine.allCases)
    func serverThatNeverReadsTheBody(_ engine: TestEngine) async throws {
        let url = try await RawHTTPServer.get().url(.neverReadsBody, query: "?case=\(UUID().uuidString)")
        let operation = UO.upload(Data(count: 16 << 20), to: url).on(engine)
        operation.retryPolicy = RetryPolicy.none
        operation.idleTimeout = 1
        _ = await Self.run(operation)
        #expect(operation.state == .failedFinished)
        #expect(operation.error?.kind == .idleTimeout(seconds: 1))
        #expect(operation.progress.bytesSent < 16 << 20)
    }

    @Test(arguments: TestEngine.allCases)
    func cancelBeforeTheHeaders(_ engine: TestEngine) async throws {
        let server = try await RawHTTPServer.get()
        let (operation, url) = try await Self.operation(.hold, on: engine)
        operation.start()
        #expect(await eventually(within: 30) { server.sawRequest(url) })
        operation.cancel()
        await operation.finished()
        #expect(operation.state == .cancelled)
        #expect(operation.error?.kind == .cancelled)
        #expect(operation.response == nil)
    }

    /// A cancel reaches the request that follows a 307 with the body (on the URLSession engine
    /// a task the engine started itself, on the NIO engine a request of its own). The redirect
    /// stays on its origin: a body never follows one to another.
    @Test(arguments: TestEngine.allCases)
    func cancelAfterARedirectThatKeepsTheBody(_ engine: TestEngine) async throws {
        let server = try await RawHTTPServer.get()
        let query = "?case=\(UUID().uuidString)"
        let held = server.url(.hold, query: query)
        let operation = DTO.post(server.url(.redirectToHold, query: query), parameters: ["a": "b"], encoding: .form).on(engine)
        operation.start()
        #expect(await eventually(within: 30) { server.sawRequest(held) })
        operation.cancel()
        await operation.finished()
        #expect(operation.state == .cancelled)
        #expect(operation.error?.kind == .cancelled)
    }

    @Test(arguments: TestEngine.allCases)
    func cancelMidBody(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("drip?bytes=2000&interval=0.05")).on(engine)
        operation.start()
        #expect(await eventually(within: 30) { operation.progress.bytesReceived > 0 })
        operation.cancel()
        await operation.finished()
        #expect(operation.state == .cancelled)
        #expect(operation.error?.kind == .cancelled)
        #expect(operation.statusCode == 200)
        #expect(operation.receivedData.isEmpty, "partial data is discarded")
    }
}
