import Foundation
import TestSupport
import Testing

@testable import NetOps
@testable import NetOpsHTTP

/// A circuit per origin: consecutive failures open it, an open circuit refuses at once, a probe
/// after the cool-down closes or reopens it. On both engines, against a refused port and
/// DemoServer's failing statuses, each test with a breaker and a session of its own.
@Suite(.timeLimit(.minutes(1)))
struct CircuitBreakerTests {
    /// Transitions a breaker reported, in order.
    final class Heard: Sendable {
        let transitions = Locked<[CircuitBreaker.Transition]>([])
        var states: [CircuitBreaker.State] { transitions.withLock { $0.map(\.state) } }
        var kinds: [String] {
            states.map {
                switch $0 {
                case .open: "open"
                case .halfOpen: "halfOpen"
                case .closed: "closed"
                }
            }
        }
    }

    static func breaker(threshold: Int, coolDown: TimeInterval) -> (CircuitBreaker, Heard) {
        let heard = Heard()
        let breaker = CircuitBreaker(configuration: .init(failureThreshold: threshold, coolDown: coolDown)) { transition in
            heard.transitions.withLock { $0.append(transition) }
        }
        return (breaker, heard)
    }

    @Test(arguments: TestEngine.allCases)
    func consecutiveFailuresOpenTheCircuitAndLaterCallsFailAtOnce(_ engine: TestEngine) async throws {
        let (breaker, heard) = Self.breaker(threshold: 3, coolDown: 60)
        let session = engine.makeSession(options: .init(middleware: [breaker]))
        let url = URL(string: "http://127.0.0.1:\(try unusedPort())/")!
        for _ in 0..<3 {
            let operation = DTO.get(url).on(session)
            _ = try? await operation.run()
            guard case .cannotConnect = operation.error?.kind else {
                Issue.record("expected cannotConnect, got \(String(describing: operation.error))")
                return
            }
        }
        #expect(heard.kinds == ["open"])
        let refused = DTO.get(url.appendingPathComponent("more")).on(session)
        _ = try? await refused.run()
        guard case let .circuitOpen(origin, retryAfter) = refused.error?.kind else {
            Issue.record("expected circuitOpen, got \(String(describing: refused.error))")
            return
        }
        #expect(origin == "http://127.0.0.1:\(url.port!)")
        #expect(retryAfter > 50 && retryAfter <= 60)
        #expect(refused.sentRequest == nil)
        #expect(refused.error?.kind.name == "circuitOpen")
        // Another origin is not affected.
        try await DTO.get(try await TestServer.url("json")).on(session).run()
    }

    /// After the cool-down one probe goes; its success closes the circuit, its failure reopens it.
    @Test(arguments: TestEngine.allCases)
    func aProbeAfterTheCoolDownClosesOrReopensTheCircuit(_ engine: TestEngine) async throws {
        let (breaker, heard) = Self.breaker(threshold: 2, coolDown: 0.3)
        let session = engine.makeSession(options: .init(middleware: [breaker]))
        let failing = try await TestServer.url("status/503")
        for _ in 0..<2 { _ = try? await DTO.get(failing).on(session).run() }
        #expect(heard.kinds == ["open"])
        try await Task.sleep(for: .milliseconds(400))
        // The probe fails: open again.
        _ = try? await DTO.get(failing).on(session).run()
        #expect(heard.kinds == ["open", "halfOpen", "open"])
        try await Task.sleep(for: .milliseconds(400))
        // The probe succeeds: closed, and calls go again.
        try await DTO.get(try await TestServer.url("json")).on(session).run()
        #expect(heard.kinds == ["open", "halfOpen", "open", "halfOpen", "closed"])
        #expect(breaker.state(of: failing) == .closed(consecutiveFailures: 0))
    }

    /// 4xx answers are the caller's problem, not the origin's: they never open the circuit, and
    /// a success between failures starts the count again.
    @Test func clientErrorsAndSuccessesDoNotOpenIt() async throws {
        let (breaker, heard) = Self.breaker(threshold: 2, coolDown: 60)
        let session = TestEngine.nio.makeSession(options: .init(middleware: [breaker]))
        for _ in 0..<4 { _ = try? await DTO.get(try await TestServer.url("status/404")).on(session).run() }
        _ = try? await DTO.get(try await TestServer.url("status/500")).on(session).run()
        try await DTO.get(try await TestServer.url("json")).on(session).run()
        _ = try? await DTO.get(try await TestServer.url("status/500")).on(session).run()
        #expect(heard.kinds.isEmpty)
        #expect(breaker.state(of: try await TestServer.url("json")) == .closed(consecutiveFailures: 1))
    }

    /// A retry policy does not retry a refusal of the breaker: the call ends at once.
    @Test func aRefusalIsNotRetried() async throws {
        let (breaker, _) = Self.breaker(threshold: 1, coolDown: 60)
        let session = TestEngine.nio.makeSession(
            options: .init(retryPolicy: RetryPolicy(maximumAttempts: 5, baseDelay: 0.01), middleware: [breaker]))
        let url = URL(string: "http://127.0.0.1:\(try unusedPort())/")!
        let operation = DTO.get(url).on(session)
        _ = try? await operation.run()
        guard case .circuitOpen = operation.error?.kind else {
            Issue.record("expected circuitOpen after the first failure opened the circuit, got \(String(describing: operation.error))")
            return
        }
        #expect(!RetryPolicy.standard.isTransient(try #require(operation.error)))
    }
}
