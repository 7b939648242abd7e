import APILayer
import Foundation
import InMemoryTracing
import MetricsTestKit
import NetOps
import NetOpsHTTP
import TestSupport
import Testing
import Validator

/// An API's identical calls in flight at once share one request when its scope coalesces: one
/// answer from the server, every call its own model, counted and marked on its attempt span.
@Suite("API scopes: coalescing", .timeLimit(.minutes(1)))
struct ScopeCoalescingTests {
    enum Counted: String, APIMethod {
        case counted
        var path: String { "counted/{key}" }
        var httpMethod: HTTPMethod { .get }
        var encoding: RequestEncoding { .query }
        var defaultParameters: Parameters { [:] }
        var validation: ValidationPolicy { .custom { _ in [] } }
    }

    struct Answer: Decodable, Sendable, Equatable {
        let key: String
        let served: Int
    }

    /// Runs `count` identical calls at once in `scope` and returns their answers.
    static func callTogether(_ count: Int, key: String, in scope: APIScope) async throws -> [Answer] {
        try await withThrowingTaskGroup(of: Answer.self) { group in
            for _ in 0..<count {
                group.addTask {
                    try await APIManager.withDefaultAPI(scope) {
                        try await APIManager.call(Counted.counted, properties: ["key": key, "delay": 2], as: Answer.self)
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test(arguments: TestEngine.allCases)
    func identicalCallsShareOneRequest(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        var configuration = APIScope.Configuration(
            baseURL: server.baseURL, session: engine.makeSession(), metricsFactory: metrics, tracer: tracer)
        #expect(configuration.coalescing == nil, "off by default")
        configuration.coalescing = RequestCoalescer.Configuration()
        let scope = APIScope(name: "coalescing-\(engine)", configuration: configuration)
        let key = UUID().uuidString
        let answers = try await Self.callTogether(10, key: key, in: scope)
        #expect(answers == Array(repeating: Answer(key: key, served: 1), count: 10))
        let joined = metrics.counters.filter { $0.label == "apilayer.coalesced.requests" }.map(\.totalValue).reduce(0, +)
        #expect(joined == 9)
        // The attempt spans end on the scope's report queue.
        #expect(await eventually { tracer.finishedSpans.filter { $0.kind == .client }.count == 10 })
        let attempts = tracer.finishedSpans.filter { $0.kind == .client }
        #expect(attempts.filter { $0.attributes["apilayer.coalesced"]?.toSpanAttribute() == true }.count == 9)
    }

    @Test func offEachCallSendsItsOwn() async throws {
        let server = try await TestServer.get()
        let scope = APIScope(
            name: "not-coalescing", configuration: APIScope.Configuration(baseURL: server.baseURL, session: TestEngine.nio.makeSession()))
        let key = UUID().uuidString
        let answers = try await Self.callTogether(3, key: key, in: scope)
        #expect(Set(answers.map(\.served)) == [1, 2, 3])
    }
}
