import Foundation
import TestSupport
import Testing

@testable import NetOps

/// Timeouts, deadlines and the time limit between runs.
///
/// Shared side of the process gate: these tests time things, so no load test runs beside them.
/// Waiting for the gate counts against the time limit, hence five minutes: a test may queue
/// behind every exclusive test of the run (about 45 s together on two loaded cores).
@Suite(.processGate(.shared, minutes: 5))
struct TimingTests {
    /// The seconds `operation` spent working, by its own clock: from its transfer's start to the
    /// moment a deadline (or anything else) stopped it. Neither the test's scheduling nor the
    /// delivery of its completion counts.
    static func workedSeconds(_ operation: BaseOperation) -> Double {
        operation.withLock { operation.storage.history.workedSeconds }
    }

    /// FoundationNetworking truncates 0.5 s to 0 (an immediate timeout); NetOps honours it.
    ///
    /// Measured on the operation's own clock. At least 0.45 s: the timer is armed for 0.5 s after
    /// the transfer's start and a dispatch timer never fires early (the 0.05 s spare covers the
    /// two clock reads). Under 1.5 s: what ended it was NetOps's timer, not the server's answer
    /// (5 s) nor the engine's backstop (6 s); the second of slack is a timer firing late on a
    /// loaded two-core machine.
    @Test(arguments: TestEngine.allCases) func halfSecondIdleTimeoutFiresAtHalfASecond(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("delay?seconds=5")).on(engine)
        operation.idleTimeout = 0.5
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        let worked = Self.workedSeconds(operation)
        #expect(operation.state == .failedFinished)
        #expect(operation.error?.kind == .idleTimeout(seconds: 0.5))
        #expect(worked >= 0.45 && worked < 1.5, "fired after \(worked) s of work")
    }

    @Test(arguments: TestEngine.allCases) func idleTimeoutIsResetByArrivingData(_ engine: TestEngine) async throws {
        // One byte every 0.2 s for 9 s: never idle for 6 s, though the whole takes longer. The
        // 30-fold margin between the gaps and the timeout absorbs a test server stalled behind
        // the jobs of the tests starting at once: a 2 s timeout fired under a load average of 7
        // on two cores, a 3 s one in CI.
        let operation = DTO.get(try await TestServer.url("drip?bytes=45&interval=0.2")).on(engine)
        operation.idleTimeout = 6
        try await operation.run()
        #expect(operation.receivedData.count == 45)
    }

    @Test(arguments: TestEngine.allCases) func totalDeadlineStopsATricklingTransfer(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("drip?bytes=50&interval=0.1")).on(engine)
        operation.idleTimeout = 2
        operation.totalTimeout = 0.6
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.error?.kind == .deadlineExceeded(seconds: 0.6))
        // On the operation's own clock (see above): ended at its 0.6 s deadline, well before
        // the idle timeout (2 s) or the end of the drip (5 s).
        let worked = Self.workedSeconds(operation)
        #expect(worked >= 0.55 && worked < 1.5, "ended after \(worked) s of work")
    }

    /// The total deadline bounds the retries too: a request that keeps failing with 503 and
    /// `Retry-After: 7` under a generous retry policy ends at its 12 s deadline, during a wait
    /// (the second, or the first if a loaded machine was slow to answer); the waits, longer than
    /// the 6 s idle timeout, neither trip it nor restart the count.
    /// (The idle timeout must stay well above what a loaded run of the whole suite takes to
    /// answer one request: 0.8 s fired there once, 3 s in CI, where the test server's handlers
    /// queue behind the jobs of a hundred tests starting at once.)
    @Test(arguments: TestEngine.allCases) func totalDeadlineCountsTheWaitsBetweenRetries(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("realm/\(UUID().uuidString)/flaky?fail=100&retryAfter=7")
        let operation = DTO.get(url).on(engine)
        operation.retryPolicy = RetryPolicy(maximumAttempts: 100, retryBudget: 60)
        operation.idleTimeout = 6
        operation.totalTimeout = 12
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        // Without the waits counted, the deadline would never pass: the retries would go on
        // until the policy's 60 s budget and end with the 503.
        #expect(operation.error?.kind == .deadlineExceeded(seconds: 12))
        let worked = Self.workedSeconds(operation)
        #expect(worked >= 11.95 && worked < 14, "ended after \(worked) s of work")
    }

    @Test(arguments: TestEngine.allCases) func timeLimitBetweenRuns(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("json")
        let key = "time-limit-\(UUID().uuidString)"
        let first = DTO.get(url).on(engine)
        first.timeLimitBetweenRuns = 3
        first.runLimitKey = key
        try await first.run()
        let limit = try #require(first.dateDelayAfterExecution)
        #expect(limit > Date())

        let tooEarly = DTO.get(url).on(engine)
        tooEarly.timeLimitBetweenRuns = 3
        tooEarly.runLimitKey = key
        await #expect(throws: NetOpsError.self) { try await tooEarly.run() }
        guard case .tooSoon = tooEarly.error?.kind else {
            Issue.record("expected tooSoon, got \(String(describing: tooEarly.error))")
            return
        }

        try await Task.sleep(until: .now + .seconds(limit.timeIntervalSinceNow + 0.05))
        let later = DTO.get(url).on(engine)
        later.timeLimitBetweenRuns = 3
        later.runLimitKey = key
        try await later.run()
        #expect(later.state == .successFinished)
    }

    @Test(arguments: TestEngine.allCases) func aRunningLimitedRequestBlocksASecond(_ engine: TestEngine) async throws {
        // The run limit is keyed by method and URL without the query: each engine's case gets a
        // key of its own, as the cases may run side by side. The first answer takes 2 s, so the
        // first still runs when the second starts, however busy the machine.
        let url = try await TestServer.url("delay?seconds=2")
        let key = "running-limit-\(engine)-\(UUID().uuidString)"
        let first = DTO.get(url).on(engine)
        first.timeLimitBetweenRuns = 0.1
        first.runLimitKey = key
        first.start()
        let second = DTO.get(url).on(engine)
        second.timeLimitBetweenRuns = 0.1
        second.runLimitKey = key
        await #expect(throws: NetOpsError.self) { try await second.run() }
        await first.finished()
        #expect(first.state == .successFinished)
    }
}
