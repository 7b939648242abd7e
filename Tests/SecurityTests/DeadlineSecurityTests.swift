import APILayer
import Foundation
import TestSupport
import Testing

@testable import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every wait ends: time parked counts against an operation's `totalTimeout`, and a token
/// refresh that does not return fails after `refreshTimeout`.
@Suite("Security: parked time and refresh deadlines", .processGate(.shared, minutes: 2))
struct DeadlineSecurityTests {
    /// Parks every request: the operation waits for a replay that never comes.
    struct ParkForever: NetworkMiddleware {
        func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
            .park(in: context.session.parkingLot)
        }
    }

    /// Parks the first request only; a replay proceeds.
    final class ParkOnce: NetworkMiddleware, Sendable {
        private let parked = Locked(false)

        func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
            let first = parked.withLock { parked -> Bool in
                defer { parked = true }
                return !parked
            }
            return first ? .park(in: context.session.parkingLot) : .proceed
        }
    }

    static func isDeadlineExceeded(_ operation: BaseOperation) -> Bool {
        if case .deadlineExceeded? = operation.error?.kind { return true }
        return false
    }

    /// A parked operation whose total deadline passes ends with `.deadlineExceeded`, once,
    /// leaves the parked set, and a later replay does not touch it.
    @Test(arguments: TestEngine.allCases)
    func aParkedOperationEndsAtItsTotalDeadline(_ engine: TestEngine) async throws {
        let completions = Locked(0)
        let operation = DTO.get(try await TestServer.url("json")).on(engine)
        operation.use(ParkForever())
        operation.totalTimeout = 0.3
        operation.onCompletion { _ in completions.withLock { $0 += 1 } }
        operation.start()
        #expect(await eventually(within: 20) { operation.isFinishedOrCancelled }, "a parked operation outlived its totalTimeout")
        await operation.finished()
        #expect(operation.state == .failedFinished)
        #expect(Self.isDeadlineExceeded(operation), "\(String(describing: operation.error))")
        #expect(operation.parkingLot == nil)
        #expect(!NetworkSession.shared.parkingLot.take(operation))
        operation.replay()
        operation.failPostponed(with: NetOpsError(.cancelled, url: nil))
        #expect(operation.state == .failedFinished)
        #expect(Self.isDeadlineExceeded(operation))
        #expect(completions.withLock { $0 } == 1)
    }

    /// Time parked counts when the operation is replayed: parked at least 1 s, then a request
    /// the server answers after 0.8 s, against a total of 1.5 s, ends at the deadline.
    @Test(arguments: TestEngine.allCases)
    func parkedTimeCountsAfterTheReplay(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("delay?seconds=0.8")).on(engine)
        operation.use(ParkOnce())
        operation.totalTimeout = 1.5
        operation.start()
        #expect(await eventually { operation.isPostponed })
        try await Task.sleep(for: .seconds(1))
        if operation.parkingLot?.take(operation) == true { operation.replay() }
        await operation.finished()
        #expect(operation.state == .failedFinished, "parked time was not counted")
        #expect(Self.isDeadlineExceeded(operation), "\(String(describing: operation.error))")
    }

    /// An authenticator that never returns fails after `refreshTimeout`: the operation parked
    /// on it and every waiter end with that error; its late result is ignored.
    @Test(arguments: TestEngine.allCases)
    func aRefreshThatNeverReturnsTimesOut(_ engine: TestEngine) async throws {
        let (_, _, base) = try await SecurityRealm.new()
        let gate = AsyncGate()
        let returned = Locked(false)
        var configuration = AuthenticationCoordinator.Configuration()
        configuration.refreshTimeout = 0.5
        let original = Token(accessToken: "not-issued-\(UUID().uuidString)", refreshToken: "seed-1")
        let store = InMemoryTokenStore(original)
        let coordinator = AuthenticationCoordinator(
            authenticator: ClosureAuthenticator { _ in
                await gate.wait()
                returned.withLock { $0 = true }
                return Token(accessToken: "late-token")
            },
            store: store, configuration: configuration)
        let completions = Locked(0)
        let operation = AuthenticationSecurityTests.guarded(
            base.appendingPathComponent("protected"), by: coordinator, engine: engine, completions: completions)
        operation.start()
        // Parked, or already ended by the refresh's half second when this task ran late.
        #expect(await eventually { operation.isPostponed || operation.isFinishedOrCancelled })
        await #expect(throws: AuthenticationError.refreshTimedOut(seconds: 0.5)) { try await coordinator.authenticationProcess() }
        #expect(await eventually(within: 20) { operation.isFinishedOrCancelled }, "the parked operation outlived the refresh timeout")
        await operation.finished()
        #expect(operation.state == .failedFinished)
        #expect(operation.error?.description.contains("refreshTimeout") == true, "\(String(describing: operation.error))")
        #expect(coordinator.parkingLot.operations.isEmpty)

        // The timed-out refresh returns late: nothing of it is kept.
        gate.release()
        #expect(await eventually { returned.withLock { $0 } })
        try await Task.sleep(for: .milliseconds(200))
        #expect(coordinator.token == original)
        #expect(try store.load() == original)
        #expect(completions.withLock { $0 } == 1)
    }

    /// An operation parked on a slow refresh ends at its own total deadline, leaves the parked
    /// set, and the refresh's replay, when it comes, does not touch it.
    @Test(arguments: TestEngine.allCases)
    func aParkedOperationsDeadlineEndsItBeforeTheRefresh(_ engine: TestEngine) async throws {
        let (_, _, base) = try await SecurityRealm.new()
        let fresh = try await AuthenticationSecurityTests.issuedToken(base: base)
        let gate = AsyncGate()
        let store = InMemoryTokenStore(Token(accessToken: "not-issued-\(UUID().uuidString)", refreshToken: "seed-1"))
        let coordinator = AuthenticationSecurityTests.gated(gate, returning: { fresh }, store: store)
        let completions = Locked(0)
        let operation = AuthenticationSecurityTests.guarded(
            base.appendingPathComponent("protected"), by: coordinator, engine: engine, completions: completions)
        operation.totalTimeout = 0.5
        operation.start()
        #expect(await eventually(within: 20) { operation.isFinishedOrCancelled }, "a parked operation outlived its totalTimeout")
        await operation.finished()
        #expect(Self.isDeadlineExceeded(operation), "\(String(describing: operation.error))")
        #expect(coordinator.parkingLot.operations.isEmpty)

        gate.release()
        _ = try await coordinator.authenticationProcess()
        #expect(coordinator.token == fresh)
        #expect(operation.state == .failedFinished)
        #expect(Self.isDeadlineExceeded(operation))
        #expect(completions.withLock { $0 } == 1)
    }

    /// `timeLimitBetweenRuns` keys a request by method and URL without its query: a changing
    /// query (a cache-buster) is the same request, and does not grow the table.
    @Test(arguments: TestEngine.allCases)
    func aRunLimitIgnoresTheQuery(_ engine: TestEngine) async throws {
        let path = "bytes/\(Int.random(in: 10_000...20_000))"
        let first = DTO.get(try await TestServer.url("\(path)?cache=\(UUID().uuidString)")).on(engine)
        first.timeLimitBetweenRuns = 30
        try await first.run()
        let second = DTO.get(try await TestServer.url("\(path)?cache=\(UUID().uuidString)#part")).on(engine)
        second.timeLimitBetweenRuns = 30
        await #expect(throws: NetOpsError.self) { try await second.run() }
        guard case .tooSoon? = second.error?.kind else {
            Issue.record("expected tooSoon, got \(String(describing: second.error))")
            return
        }
        #expect(second.attemptsMade == 0)
    }

    /// The table of run limits drops what has passed: a thousand keys whose short limits pass
    /// along the way leave a table of a few hundred entries at most.
    @Test func runLimitsStayBounded() async throws {
        let limits = RunLimits()
        for round in 0..<10 {
            for index in 0..<100 {
                let key = "GET test://bounded/\(round)/\(index)/\(UUID().uuidString)"
                #expect(limits.claim(key) == nil)
                limits.release(key, until: Date(timeIntervalSinceNow: 0.01))
            }
            try await Task.sleep(for: .milliseconds(30))
        }
        #expect(limits.count < 500, "\(limits.count) entries kept")
    }
}
