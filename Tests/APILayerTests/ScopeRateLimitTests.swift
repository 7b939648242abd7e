import APILayer
import Foundation
import MetricsTestKit
import NetOps
import NetOpsHTTP
import TestSupport
import Testing
import Validator

/// An API's rate limits, in its scope: by default the server's own budget headers park the
/// API's calls until the reset, so a service calling one after another is never refused.
@Suite("API scopes: rate limits", .timeLimit(.minutes(1)))
struct ScopeRateLimitTests {
    enum Limited: String, APIMethod {
        case limited
        var httpMethod: HTTPMethod { .get }
        var encoding: RequestEncoding { .query }
        var defaultParameters: Parameters { [:] }
        var validation: ValidationPolicy { .custom { _ in [] } }
    }

    struct Answer: Decodable, Sendable {
        let ok: Bool
    }

    struct Stats: Decodable, Sendable {
        let served: Int
        let refused: Int
    }

    @Test(arguments: TestEngine.allCases)
    func aScopeHonoursTheServersBudgetByDefault(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let log = LogCapture()
        let metrics = TestMetrics()
        var configuration = APIScope.Configuration(baseURL: server.baseURL, session: engine.makeSession(), metricsFactory: metrics)
        configuration.logger = log.logger()
        #expect(configuration.rateLimit == RateLimiter.Configuration())
        let scope = APIScope(name: "limited-\(engine)", configuration: configuration)
        let key = "scope-\(UUID().uuidString)"
        let askedToWait = { log.messages(atLeast: .warning).contains { $0.contains("asked to wait") && $0.contains("budgetExhausted") } }
        // The server's window of 6 s starts with its first call and serves two: the third call
        // is parked until it ends. Where a loaded machine spread two calls over more than the
        // window, it began anew with nothing spent, and the calls go on (a dozen at most) until
        // the scope was asked to wait.
        var sent = 0
        while sent < 12, sent < 3 || !askedToWait() {
            let answer = try await APIManager.withDefaultAPI(scope) {
                try await APIManager.call(Limited.limited, properties: ["key": key, "budget": 2, "window": 6], as: Answer.self)
            }
            #expect(answer.ok)
            sent += 1
        }
        let stats = try JSONDecoder().decode(
            Stats.self, from: try await DTO.get(server.baseURL.appendingPathComponent("limited-stats/\(key)")).run().receivedData)
        #expect(stats.served == sent)
        #expect(stats.refused == 0)
        #expect(askedToWait())
        #expect(metrics.counters.contains { $0.label == "apilayer.ratelimit.waits" && $0.totalValue > 0 })
    }

    /// Turned off, the same calls run into the server's refusal.
    @Test func offTheServerRefuses() async throws {
        let server = try await TestServer.get()
        var configuration = APIScope.Configuration(baseURL: server.baseURL, session: TestEngine.nio.makeSession())
        configuration.rateLimit = nil
        let scope = APIScope(name: "unlimited", configuration: configuration)
        let key = "off-\(UUID().uuidString)"
        var refused = 0
        for _ in 0..<4 {
            let operation = APIManager.withDefaultAPI(scope) {
                APIManager.operation(Limited.limited, properties: ["key": key, "budget": 2, "window": 30], as: Answer.self)
            }
            _ = try? await operation.run()
            if case let .failure(error) = operation.result, case .server(status: 429, _) = error.stage { refused += 1 }
        }
        #expect(refused == 2)
    }
}
