import Foundation
import Testing

@testable import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
import TestSupport
#endif

/// The retry policy: which requests are sent again, when, and how often.
@Suite(.timeLimit(.minutes(1)))
struct RetryTests {
    static func flaky(_ query: String) async throws -> URL {
        try await TestServer.url("realm/retry-\(UUID().uuidString.prefix(8))/flaky?key=k&\(query)")
    }

    @Test(arguments: TestEngine.allCases) func retryAfterSecondsIsHonoured(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await Self.flaky("fail=2&status=503&retryAfter=1")).on(engine)
        operation.retryPolicy = RetryPolicy(maximumAttempts: 4, baseDelay: 0.01)
        let started = Date()
        try await operation.run()
        #expect(operation.attemptsMade == 3)
        #expect(Date().timeIntervalSince(started) >= 1.9, "two Retry-After: 1 waits")
        #expect(String(decoding: operation.receivedData, as: UTF8.self).contains(#""attempt":3"#))
    }

    @Test(arguments: TestEngine.allCases, [408, 429, 500, 502, 503, 504])
    func retryableStatuses(_ engine: TestEngine, _ status: Int) async throws {
        let operation = DTO.get(try await Self.flaky("fail=1&status=\(status)")).on(engine)
        operation.retryPolicy = RetryPolicy(maximumAttempts: 2, baseDelay: 0.01)
        try await operation.run()
        #expect(operation.attemptsMade == 2)
    }

    @Test(arguments: TestEngine.allCases) func givesUpAfterMaximumAttempts(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await Self.flaky("fail=10&status=500")).on(engine)
        operation.retryPolicy = RetryPolicy(maximumAttempts: 3, baseDelay: 0.01)
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.attemptsMade == 3)
        #expect(operation.error?.httpStatus == 500)
    }

    @Test(arguments: TestEngine.allCases) func notRetryableStatusIsNotRetried(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await Self.flaky("fail=1&status=404")).on(engine)
        operation.retryPolicy = .standard
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.attemptsMade == 1)
    }

    @Test(arguments: TestEngine.allCases) func postIsNeverReplayedUnlessMarkedReplayable(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("realm/retry-\(UUID().uuidString.prefix(8))/flaky?key=post")
        let post = DTO.post(url, parameters: ["a": 1]).on(engine)
        post.retryPolicy = RetryPolicy(maximumAttempts: 4, baseDelay: 0.01)
        await #expect(throws: NetOpsError.self) { try await post.run() }
        #expect(post.attemptsMade == 1)
        #expect(String(decoding: post.receivedData, as: UTF8.self).contains(#""attempt":1"#))

        let replayable = DTO.post(url, parameters: ["a": 1]).on(engine)
        replayable.retryPolicy = RetryPolicy(maximumAttempts: 3, baseDelay: 0.01)
        replayable.isReplayable = true
        await #expect(throws: NetOpsError.self) { try await replayable.run() }
        #expect(replayable.attemptsMade == 3)
    }

    @Test(arguments: TestEngine.allCases) func transientTransportFailuresAreRetried(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("truncated/100000")).on(engine)
        operation.retryPolicy = RetryPolicy(maximumAttempts: 3, baseDelay: 0.01)
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.attemptsMade == 3)
    }

    @Test func backoffHasFullJitterWithinItsCeiling() {
        let policy = RetryPolicy(maximumAttempts: 10, retryBudget: 1_000, baseDelay: 0.5, maximumDelay: 4)
        var random = SystemRandomNumberGenerator()
        let error = NetOpsError(.httpStatus(503), url: nil)
        for attempt in 1...8 {
            let ceiling = min(4, 0.5 * pow(2, Double(attempt - 1)))
            let delays = (0..<200).compactMap { _ in
                policy.delay(after: error, response: nil, attemptsMade: attempt, waited: 0, replayable: true, random: &random)
            }
            #expect(delays.count == 200)
            #expect(delays.allSatisfy { $0 >= 0 && $0 <= ceiling })
            #expect(Set(delays).count > 100, "jitter spreads the delays")
        }
    }

    @Test func budgetAndReplayabilityLimitRetries() {
        let policy = RetryPolicy(maximumAttempts: 10, retryBudget: 1, baseDelay: 0.5)
        var random = SystemRandomNumberGenerator()
        let error = NetOpsError(.httpStatus(503), url: nil)
        #expect(
            policy.delay(after: error, response: nil, attemptsMade: 1, waited: 1, replayable: true, random: &random) == nil
                || policy.delay(after: error, response: nil, attemptsMade: 1, waited: 1, replayable: true, random: &random) == 0)
        #expect(policy.delay(after: error, response: nil, attemptsMade: 1, waited: 0, replayable: false, random: &random) == nil)
        #expect(RetryPolicy.none.delay(after: error, response: nil, attemptsMade: 1, waited: 0, replayable: true, random: &random) == nil)
        #expect(
            policy.delay(after: NetOpsError(.cancelled, url: nil), response: nil, attemptsMade: 1, waited: 0, replayable: true, random: &random)
                == nil)
    }

    @Test func retryAfterParsesSecondsAndHTTPDates() throws {
        let url = URL(string: "http://host/")!
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        func response(_ value: String) -> HTTPURLResponse {
            HTTPURLResponse(url: url, statusCode: 503, httpVersion: "HTTP/1.1", headerFields: ["Retry-After": value])!
        }
        #expect(RetryPolicy.retryAfter(response("120"), now: now) == 120)
        #expect(RetryPolicy.retryAfter(response("Sun, 06 Nov 1994 08:50:07 GMT"), now: now) == 30)
        #expect(RetryPolicy.retryAfter(response("Sun, 06 Nov 1994 08:00:00 GMT"), now: now) == 0)
        #expect(RetryPolicy.retryAfter(response("soon"), now: now) == nil)
    }
}
