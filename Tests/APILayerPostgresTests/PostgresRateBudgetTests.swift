import APILayer
import APILayerPostgres
import Foundation
import NetOps
import NetOpsHTTP
import PostgresNIO
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `PostgresRateBudget`: two replicas' rate limiters drawing from one budget in PostgreSQL stay
/// under the limit together.
@Suite("PostgresRateBudget", .requires(.postgresql), .processGate(.shared, minutes: 3))
struct PostgresRateBudgetTests {
    /// Notes when each request passes the stages before it (the rate limiter among them).
    final class SendTimes: NetworkMiddleware, Sendable {
        private let times = Locked<[ContinuousClock.Instant]>([])

        var sorted: [ContinuousClock.Instant] { times.withLock { $0 }.sorted() }

        func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
            let now = ContinuousClock.now
            times.withLock { $0.append(now) }
            return .proceed
        }
    }

    /// Two scopes (two replicas' views), 40 calls each at once, a shared budget of 40 per second
    /// with a burst of 4: every call succeeds, and no second holds more than 44 of the 80 sends
    /// (each scope alone would send its 40 in one burst).
    @Test func twoReplicasStayUnderOneLimit() async throws {
        let server = try await TestServer.get()
        try await PostgresFixture.with { _, client in
            let name = "budget-\(UUID())"
            let budget = try PostgresRateBudget(client: client, name: name, queryTimeout: 30)
            try await budget.migrate()
            let times = SendTimes()
            let scopes = try (0..<2).map { _ in
                var configuration = APIScope.Configuration(baseURL: server.baseURL, session: NetworkSession())
                configuration.rateLimit = RateLimiter.Configuration(
                    requestsPerInterval: 40, burst: 4,
                    sharedBudget: try PostgresRateBudget(client: client, name: name, queryTimeout: 30))
                configuration.middleware = [times]
                return APIScope(name: "budget-\(UUID().uuidString.prefix(6))", configuration: configuration)
            }
            let url = server.baseURL.appendingPathComponent("json")
            async let first = Shared.calls(40, scopes[0], url: url, timeout: 60)
            async let second = Shared.calls(40, scopes[1], url: url, timeout: 60)
            let errors = await first + second
            #expect(errors.isEmpty, "\(errors.prefix(2))")
            let sends = times.sorted
            #expect(sends.count == 80)
            // Any 45 consecutive sends span at least (45 - 4) / 40 s; 0.9 s leaves room for
            // the replays' scheduling.
            for index in 0..<(sends.count - 44) {
                #expect(sends[index + 44] - sends[index] >= .seconds(0.9), "sends \(index)…\(index + 44)")
            }
        }
    }

    /// The budget's table missing: the calls wait (the limiter asks again each second) and end
    /// by their deadline; none goes over the limit unchecked.
    @Test func anUnreachableBudgetHoldsTheCalls() async throws {
        let server = try await TestServer.get()
        try await PostgresFixture.with { _, client in
            var configuration = APIScope.Configuration(baseURL: server.baseURL, session: NetworkSession())
            configuration.rateLimit = RateLimiter.Configuration(
                requestsPerInterval: 10, sharedBudget: try PostgresRateBudget(client: client, name: "missing", table: "no_such_table"))
            let scope = APIScope(name: "budget-missing", configuration: configuration)
            let operation = DataTaskOperation.get(server.baseURL.appendingPathComponent("json"))
            scope.adopt(operation)
            operation.totalTimeout = 1.5
            await #expect(throws: NetOpsError.self) { try await operation.run() }
            if case .deadlineExceeded? = operation.error?.kind {} else { Issue.record("\(String(describing: operation.error))") }
        }
    }
}
