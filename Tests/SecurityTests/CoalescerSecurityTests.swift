import APILayer
import Configuration
import Foundation
import NetOps
import NetOpsHTTP
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

    /// `baggage` may carry a tenant: requests that differ in it are not coalesced.
    @Test(arguments: TestEngine.allCases)
    func baggageIsCompared(_ engine: TestEngine) async throws {
        let (url, key) = try await Self.counted()
        let coalescer = RequestCoalescer()
        try await Self.runTogether(
            ["a", "b"].map { DTO.get(url, headers: ["baggage": "tenant=\($0)"]).use(coalescer).on(engine) })
        #expect(try await Self.served(key) == 2)
    }

    /// A configuration made in code that names a credential among the ignored fields, or an
    /// unsafe method, does not get them: two tokens never share an answer, two POSTs are never
    /// one.
    @Test(arguments: TestEngine.allCases)
    func codeCannotIgnoreACredentialOrCoalesceAPOST(_ engine: TestEngine) async throws {
        let configuration = RequestCoalescer.Configuration(
            methods: ["GET", "post", "PATCH"], ignoredHeaders: ["authorization", "Cookie", "X-Api-Key", "x-request-id"])
        #expect(configuration.methods == ["GET"])
        #expect(configuration.ignoredHeaders == ["x-request-id"])
        let coalescer = RequestCoalescer(configuration: configuration)
        let (url, key) = try await Self.counted()
        try await Self.runTogether(
            ["a", "b"].map { DTO.get(url, headers: ["Authorization": "Bearer \($0)"]).use(coalescer).on(engine) })
        #expect(try await Self.served(key) == 2)
        let (posted, postKey) = try await Self.counted()
        let posts = (0..<2).map { _ -> BaseOperation in
            var request = URLRequest(url: posted)
            request.httpMethod = "POST"
            return DTO(request: request).use(coalescer).on(engine)
        }
        try await Self.runTogether(posts)
        #expect(try await Self.served(postKey) == 2)
    }

    /// From a configuration file or the environment, a secret field among `ignoredHeaders`, or
    /// an unsafe method among `methods`, is refused with an error that names the key.
    @Test(arguments: [
        ("ignoredHeaders", ["authorization"]), ("ignoredHeaders", ["x-request-id", "Cookie"]), ("ignoredHeaders", ["X-Api-Key"]),
        ("methods", ["GET", "POST"]), ("methods", ["delete"]),
    ])
    func aConfigurationThatWouldShareCredentialsIsRefused(_ key: String, _ values: [String]) throws {
        let reader = ConfigReader(
            provider: InMemoryProvider(values: [
                AbsoluteConfigKey(["tracker", "coalescing", key]): ConfigValue(.stringArray(values), isSecret: false)
            ]))
        do {
            _ = try APIScope.Configuration(configReader: reader.scoped(to: "tracker"))
            Issue.record("\(key) = \(values) was accepted")
        } catch let error as ConfigurationError {
            #expect(error.key == "tracker.coalescing.\(key)", "\(error)")
            for value in values where !["GET", "HEAD"].contains(value) { #expect(!error.description.contains(value), "\(error)") }
        }
        #expect(throws: ConfigurationError.self) {
            try RequestCoalescer.Configuration(configReader: reader.scoped(to: "tracker").scoped(to: "coalescing"))
        }
    }
}
