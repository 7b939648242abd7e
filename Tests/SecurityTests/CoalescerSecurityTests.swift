import APILayer
import Configuration
import Foundation
import NetOps
import NetOpsNIO
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the coalescer lets share one request: only requests that would go out the same way —
/// same credentials, same `baggage`, same session (engine, TLS, proxy) — and only safe methods,
/// whatever a configuration asks.
@Suite("Security: request coalescing", .timeLimit(.minutes(2)))
struct CoalescerSecurityTests {
    /// DemoServer's `/counted/{key}` answering after `delay` seconds, a key of its own.
    static func counted(delay: Double = 0.5) async throws -> (url: URL, key: String) {
        let key = UUID().uuidString
        return (try await TestServer.url("counted/\(key)?delay=\(delay)"), key)
    }

    /// The requests DemoServer answered for `key`.
    static func served(_ key: String) async throws -> Int {
        let operation = DTO.get(try await TestServer.url("counted-stats/\(key)"))
        try await operation.run()
        let object = try JSONSerialization.jsonObject(with: operation.receivedData) as? [String: Any]
        return try #require(object?["served"] as? Int)
    }

    /// Runs `operations` together and waits for all of them.
    static func runTogether(_ operations: [BaseOperation]) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for operation in operations { group.addTask { try await operation.run() } }
            try await group.waitForAll()
        }
    }

    /// Two sessions — two engines, each with its TLS settings and proxy — never share a
    /// transfer, even for the same request: one NIO session against another NIO session, or
    /// against the URLSession engine.
    @Test(arguments: TestEngine.allCases)
    func twoSessionsNeverShareATransfer(_ engine: TestEngine) async throws {
        let (url, key) = try await Self.counted()
        let coalescer = RequestCoalescer()
        let other = engine.makeSession()
        try await Self.runTogether([DTO.get(url).use(coalescer).on(TestEngine.nio), DTO.get(url).use(coalescer).on(other)])
        if engine == .nio { try await other.shutdownNIOEngine() }
        #expect(try await Self.served(key) == 2)
        #expect(coalescer.statistics.requestsJoined == 0)
    }

}
