import Foundation
import Testing
@testable import NetOps
import TestSupport

/// Timeouts, deadlines and the time limit between runs.
@Suite(.timeLimit(.minutes(1)))
struct TimingTests {
    /// FoundationNetworking truncates 0.5 s to 0 (an immediate timeout); NetOps honours it.
    @Test(arguments: TestEngine.allCases) func halfSecondIdleTimeoutFiresAtHalfASecond(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("delay?seconds=5")).on(engine)
        operation.idleTimeout = 0.5
        let started = Date()
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        let elapsed = Date().timeIntervalSince(started)
        #expect(operation.state == .failedFinished)
        #expect(operation.error?.kind == .idleTimeout(seconds: 0.5))
        #expect(elapsed >= 0.3 && elapsed <= 0.7, "fired after \(elapsed) s")
    }

    @Test(arguments: TestEngine.allCases) func idleTimeoutIsResetByArrivingData(_ engine: TestEngine) async throws {
        // One byte every 0.1 s for 3 s: never idle for 2 s, though the whole takes longer.
        let operation = DTO.get(try await TestServer.url("drip?bytes=30&interval=0.1")).on(engine)
        operation.idleTimeout = 2
        try await operation.run()
        #expect(operation.receivedData.count == 30)
    }

    @Test(arguments: TestEngine.allCases) func totalDeadlineStopsATricklingTransfer(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("drip?bytes=50&interval=0.1")).on(engine)
        operation.idleTimeout = 2
        operation.totalTimeout = 0.6
        let started = Date()
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.error?.kind == .deadlineExceeded(seconds: 0.6))
        #expect(Date().timeIntervalSince(started) < 2)
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
        // The run limit is keyed by URL: each engine's case gets its own, as the cases may run side by side.
        let url = try await TestServer.url("delay?seconds=0.5&engine=\(engine)")
        let first = DTO.get(url).on(engine)
        first.timeLimitBetweenRuns = 0.1
        first.start()
        let second = DTO.get(url).on(engine)
        second.timeLimitBetweenRuns = 0.1
        await #expect(throws: NetOpsError.self) { try await second.run() }
        await first.finished()
        #expect(first.state == .successFinished)
    }
}
