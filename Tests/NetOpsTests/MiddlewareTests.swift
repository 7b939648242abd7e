import Foundation
import Testing

@testable import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
import TestSupport
#endif

/// The middleware chain: a service's own stages, at the session and at the operation, on both
/// engines; each test makes its session, so the suite runs beside every other.
@Suite(.timeLimit(.minutes(2)))
struct MiddlewareTests {
    /// Sets a header, noting the headers the request already had when it came by.
    struct HeaderStage: NetworkMiddleware {
        let name: String
        let value: String
        let seen = Recorder<[String: String]>()

        func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
            seen.append(request.allHTTPHeaderFields ?? [:])
            request.setValue(value, forHTTPHeaderField: name)
            return .proceed
        }
    }

    /// Accepts a status the operation does not, and fails an accepted answer whose body says
    /// `refuse`, with an error of its own.
    struct StatusJudge: NetworkMiddleware {
        struct Refused: Error, Equatable {
            let status: Int
        }

        let accepting: Int

        func judge(_ outcome: AttemptOutcome, verdict: inout Verdict, context: MiddlewareContext) throws {
            guard let status = outcome.response?.statusCode else { return }
            if status == accepting {
                verdict = .accept
            } else if verdict.isAccept, String(decoding: outcome.body, as: UTF8.self).contains("refuse") {
                verdict = .fail(Refused(status: status))
            }
        }
    }

    /// Throws where it is told to.
    struct ThrowingStage: NetworkMiddleware {
        struct Thrown: Error {}
        let inPrepare: Bool

        func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
            if inPrepare { throw Thrown() }
            return .proceed
        }

        func judge(_ outcome: AttemptOutcome, verdict: inout Verdict, context: MiddlewareContext) throws {
            if !inPrepare { throw Thrown() }
        }
    }

    static func echoedHeaders(_ operation: DTO) throws -> [String: String] {
        struct Echo: Decodable { let headers: [String: String] }
        return try JSONDecoder().decode(Echo.self, from: operation.receivedData).headers
    }

    @Test(arguments: TestEngine.allCases) func sessionAndOperationStagesPrepareInOrder(_ engine: TestEngine) async throws {
        let outer = HeaderStage(name: "X-Outer", value: "session")
        let inner = HeaderStage(name: "X-Inner", value: "operation")
        let session = engine.makeSession(options: NetworkSession.Options(middleware: [outer]))
        let operation = DTO.get(try await TestServer.url("echo")).on(session).use(inner)
        try await operation.run()
        let headers = try Self.echoedHeaders(operation)
        #expect(headers["x-outer"] == "session")
        #expect(headers["x-inner"] == "operation")
        // The session's stage ran first: the operation's saw its header.
        #expect(outer.seen.all.first?["X-Outer"] == nil)
        #expect(inner.seen.all.first?["X-Outer"] == "session")
    }

    @Test(arguments: TestEngine.allCases) func aJudgeAcceptsAStatusAndRefusesAnAnswer(_ engine: TestEngine) async throws {
        let session = engine.makeSession(options: NetworkSession.Options(middleware: [StatusJudge(accepting: 404)]))
        let missing = DTO.get(try await TestServer.url("status/404")).on(session)
        try await missing.run()
        #expect(missing.state == .successFinished)
        #expect(missing.statusCode == 404)

        let refused = DTO.get(try await TestServer.url("echo?refuse=1")).on(session)
        await #expect(throws: NetOpsError.self) { try await refused.run() }
        #expect(refused.state == .failedFinished)
        // The stage's own error travels as a value, not as a string.
        #expect(refused.error?.underlying as? StatusJudge.Refused == StatusJudge.Refused(status: 200))
        guard case .rejected = refused.error?.kind else {
            Issue.record("expected rejected, got \(String(describing: refused.error))")
            return
        }
        // A body a stage refused stays readable: it says why.
        #expect(!refused.receivedData.isEmpty)
    }

    @Test(arguments: TestEngine.allCases, [true, false])
    func aStageThatThrowsFailsTheOperationOnce(_ engine: TestEngine, _ inPrepare: Bool) async throws {
        let session = engine.makeSession()
        let completions = Counter()
        let operation = DTO.get(try await TestServer.url("json")).on(session).use(ThrowingStage(inPrepare: inPrepare))
        operation.onCompletion { _ in completions.increment() }
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.state == .failedFinished)
        #expect(operation.error?.underlying is ThrowingStage.Thrown)
        #expect(operation.attemptsMade == (inPrepare ? 0 : 1))
        try await Task.sleep(for: .milliseconds(50))
        #expect(completions.value == 1)
    }

    /// A stage that never returns holds its thread, but the operation ends at its total
    /// deadline, once; when the stage returns at last, nothing of its decision applies.
    @Test(arguments: TestEngine.allCases) func aStageThatNeverReturnsIsCutByTheDeadline(_ engine: TestEngine) async throws {
        struct Stuck: NetworkMiddleware {
            let release = DispatchSemaphore(value: 0)
            func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
                release.wait()
                return .proceed
            }
        }
        let stuck = Stuck()
        let session = engine.makeSession()
        let completions = Counter()
        let operation = DTO.get(try await TestServer.url("json")).on(session).use(stuck)
        operation.totalTimeout = 0.5
        operation.onCompletion { _ in completions.increment() }
        let started = Task { try await offCooperativePool { operation.start() } }
        #expect(await eventually(within: 20) { operation.isFinishedOrCancelled }, "the operation outlived its deadline")
        #expect(operation.error?.kind == .deadlineExceeded(seconds: 0.5))
        stuck.release.signal()
        try await started.value
        try await Task.sleep(for: .milliseconds(100))
        #expect(operation.attemptsMade == 0)
        #expect(completions.value == 1)
    }

    /// A stage parks in a lot of its own and replays what it parked.
    @Test(arguments: TestEngine.allCases) func aStageParksInItsOwnLot(_ engine: TestEngine) async throws {
        struct Gate: NetworkMiddleware {
            let lot = ParkingLot()
            let open = Locked(false)
            func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
                open.withLock { $0 } ? .proceed : .park(in: lot)
            }
        }
        let gate = Gate()
        let session = engine.makeSession()
        let operations = try await (0..<3).asyncMap { _ in DTO.get(try await TestServer.url("json")).on(session).use(gate) }
        for operation in operations { operation.start() }
        #expect(await eventually { gate.lot.operations.count == 3 })
        #expect(session.postponedOperations.isEmpty)
        #expect(operations.allSatisfy { $0.parkingLot === gate.lot })
        gate.open.withLock { $0 = true }
        #expect(gate.lot.replayAll().count == 3)
        for operation in operations { await operation.finished() }
        #expect(operations.allSatisfy { $0.state == .successFinished && $0.attemptsMade == 1 })
    }

    /// A judge's retry is a new attempt through the whole chain.
    @Test(arguments: TestEngine.allCases) func aJudgeRetries(_ engine: TestEngine) async throws {
        struct RetryOnce: NetworkMiddleware {
            func judge(_ outcome: AttemptOutcome, verdict: inout Verdict, context: MiddlewareContext) throws {
                if context.attempt == 1 { verdict = .retry(after: 0.01) }
            }
        }
        let header = HeaderStage(name: "X-Seen", value: "yes")
        let session = engine.makeSession(options: NetworkSession.Options(middleware: [header, RetryOnce()]))
        let operation = DTO.get(try await TestServer.url("json")).on(session)
        try await operation.run()
        #expect(operation.attemptsMade == 2)
        #expect(header.seen.all.count == 2)
    }

    /// The session's options reach its operations unless an operation sets its own.
    @Test(arguments: TestEngine.allCases) func sessionOptionsAreTheOperationsDefaults(_ engine: TestEngine) async throws {
        var options = NetworkSession.Options(totalTimeout: 3, maximumResponseBodyBytes: 10)
        options.retryPolicy = RetryPolicy(maximumAttempts: 3, baseDelay: 0.01)
        let session = engine.makeSession(options: options)
        let small = DTO.get(try await TestServer.url("bytes/100")).on(session)
        await #expect(throws: NetOpsError.self) { try await small.run() }
        #expect(small.maximumResponseBodyBytes == 10)

        // Its own settings win over the session's (and a loaded machine meets no deadline here).
        let own = DTO.get(try await TestServer.url("bytes/100")).on(session)
        own.maximumResponseBodyBytes = nil
        own.totalTimeout = nil
        try await own.run()
        #expect(own.receivedData.count == 100)

        let slow = DTO.get(try await TestServer.url("delay?seconds=20")).on(session)
        await #expect(throws: NetOpsError.self) { try await slow.run() }
        #expect(slow.error?.kind == .deadlineExceeded(seconds: 3))

        let flaky = DTO.get(try await TestServer.url("realm/mw-\(UUID().uuidString.prefix(8))/flaky?key=k&fail=2&status=503")).on(session)
        flaky.maximumResponseBodyBytes = nil
        flaky.totalTimeout = nil
        try await flaky.run()
        #expect(flaky.attemptsMade == 3)
    }

    /// A session released while its operations run: they keep it until they end.
    @Test(arguments: TestEngine.allCases) func aSessionReleasedWhileOperationsRun(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("delay?seconds=0.3")
        weak var released: NetworkSession?
        let operations: [DTO] = {
            let session = engine.makeSession()
            released = session
            return (0..<4).map { _ in
                let operation = DTO.get(url)
                operation.privateSession = session
                operation.start()
                return operation
            }
        }()
        for operation in operations { await operation.finished() }
        #expect(operations.allSatisfy { $0.state == .successFinished })
        _ = released
    }
}

extension Sequence {
    /// `map` with an asynchronous, throwing transform, in order.
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
