import APILayer
import Foundation
import MetricsTestKit
import NetOps
import TestSupport
import Testing
import Validator

/// An API's circuit breaker, configured in its scope: its calls to an origin that keeps failing
/// fail at once with `circuitOpen`, and each change of the circuit is logged and counted.
@Suite("API scopes: circuit breaker", .timeLimit(.minutes(1)))
struct ScopeCircuitBreakerTests {
    @Test(arguments: TestEngine.allCases)
    func anAPIsCircuitOpensAfterRepeatedFailures(_ engine: TestEngine) async throws {
        let log = LogCapture()
        let metrics = TestMetrics()
        let base = try #require(URL(string: "http://127.0.0.1:\(try unusedPort())/"))
        var configuration = APIScope.Configuration(baseURL: base, session: engine.makeSession(), metricsFactory: metrics)
        configuration.logger = log.logger()
        configuration.circuitBreaker = .init(failureThreshold: 2, coolDown: 60)
        let scope = APIScope(name: "breaker-\(engine)", configuration: configuration)
        var kinds: [String] = []
        for _ in 0..<4 {
            let operation = APIManager.withDefaultAPI(scope) { APIManager.operation(PingAPI.ping, as: NoContent.self) }
            _ = try? await operation.run()
            guard case let .failure(error) = operation.result, case let .transport(cause) = error.stage else {
                Issue.record("expected a transport failure, got \(String(describing: operation.result))")
                return
            }
            kinds.append(cause.kind.name)
        }
        #expect(kinds == ["cannotConnect", "cannotConnect", "circuitOpen", "circuitOpen"])
        let warnings = log.messages(atLeast: .warning)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("circuit of http://127.0.0.1:\(base.port!) opened") == true)
        let opened = metrics.counters.filter { counter in
            counter.label == "apilayer.circuit.transitions" && counter.dimensions.contains { $0 == ("state", "open") }
        }
        #expect(opened.count == 1)
        #expect(opened.first?.totalValue == 1)
    }

    /// Without the setting there is no breaker: every call tries.
    @Test func offByDefault() async throws {
        let base = try #require(URL(string: "http://127.0.0.1:\(try unusedPort())/"))
        let scope = APIScope(name: "no-breaker", configuration: APIScope.Configuration(baseURL: base, session: TestEngine.nio.makeSession()))
        #expect(scope.configuration.circuitBreaker == nil)
        for _ in 0..<6 {
            let operation = APIManager.withDefaultAPI(scope) { APIManager.operation(PingAPI.ping, as: NoContent.self) }
            _ = try? await operation.run()
            guard case let .failure(error) = operation.result, case let .transport(cause) = error.stage, case .cannotConnect = cause.kind else {
                Issue.record("expected cannotConnect, got \(String(describing: operation.result))")
                return
            }
        }
    }
}
