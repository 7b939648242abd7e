import APILayer
import Foundation
import InMemoryTracing
import MetricsTestKit
import NetOps
import NetOpsHTTP
import Templater
import TestSupport
import Testing
import Validator

/// An API scope with an HTTP cache: a fresh answer or a 304 reuses the model already validated
/// and mapped from the same body, until the templates change; every request is counted by how
/// the cache took part, and its attempt span says so.
@Suite("API scopes: HTTP cache", .timeLimit(.minutes(1)))
struct ScopeCacheTests {
    /// Counts the validations of the responses.
    final class Counted: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func increment() { lock.withLock { value += 1 } }
        var current: Int { lock.withLock { value } }
    }

    struct Cached: APIMethod {
        let validations: Counted
        var rawValue: String { "cached" }
        init(validations: Counted) { self.validations = validations }
        init?(rawValue: String) { nil }
        var path: String { "cacheable/{key}" }
        var httpMethod: HTTPMethod { .get }
        var encoding: RequestEncoding { .query }
        var defaultParameters: Parameters { [:] }
        var validation: ValidationPolicy {
            .custom { [validations] _ in
                validations.increment()
                return []
            }
        }
    }

    struct Page: Decodable, Sendable, Equatable {
        struct Item: Decodable, Sendable, Equatable {
            let id: Int
            let title: String
        }
        let version: Int
        let items: [Item]
    }

    @Test(arguments: TestEngine.allCases)
    func a304ReusesTheModelAndANewTemplateChecksAgain(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scope-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let templates = TemplateStore(directory: folder)
        var configuration = APIScope.Configuration(
            baseURL: server.baseURL, templates: templates, session: engine.makeSession(), metricsFactory: metrics, tracer: tracer)
        #expect(configuration.cache == nil, "off by default")
        configuration.cache = try HTTPCache()
        let scope = APIScope(name: "cache-\(engine)", configuration: configuration)
        let validations = Counted()
        let key = UUID().uuidString
        func call() async throws -> Page {
            try await APIManager.withDefaultAPI(scope) {
                try await APIManager.call(
                    Cached(validations: validations), properties: ["key": key, "maxAge": 0, "etag": 1, "items": 30], as: Page.self)
            }
        }
        let first = try await call()
        #expect(first.items.count == 30)
        #expect(validations.current == 1)
        let second = try await call()
        #expect(second == first)
        #expect(validations.current == 1, "the 304's model was the one already checked")
        try templates.write(.object(["response": .object([:])]), for: "unrelated.get")
        let third = try await call()
        #expect(third == first)
        #expect(validations.current == 2, "a new template generation checks the body again")

        @Sendable func counted(_ outcome: String) -> Int64 {
            metrics.counters.filter { $0.label == "apilayer.cache.lookups" && $0.dimensions.contains { $0 == ("outcome", outcome) } }
                .map(\.totalValue).reduce(0, +)
        }
        #expect(await eventually { counted("miss") == 1 && counted("revalidated") == 2 })
        #expect(await eventually { tracer.finishedSpans.filter { $0.kind == .client }.count == 3 })
        let attempts = tracer.finishedSpans.filter { $0.kind == .client }
        #expect(attempts.filter { $0.attributes["apilayer.cache"]?.toSpanAttribute() == "revalidated" }.count == 2)
    }

    @Test func aFreshAnswerReusesTheModelWithoutARequest() async throws {
        let server = try await TestServer.get()
        var configuration = APIScope.Configuration(baseURL: server.baseURL, session: TestEngine.nio.makeSession())
        configuration.cache = try HTTPCache()
        let scope = APIScope(name: "fresh-cache", configuration: configuration)
        let validations = Counted()
        let key = UUID().uuidString
        for _ in 0..<5 {
            let page = try await APIManager.withDefaultAPI(scope) {
                try await APIManager.call(Cached(validations: validations), properties: ["key": key, "maxAge": 600, "items": 3], as: Page.self)
            }
            #expect(page.items.map(\.id) == [1, 2, 3])
        }
        #expect(validations.current == 1)
        #expect(configuration.cache?.statistics.hits == 4)
    }
}
