import APILayer
import DemoServer
import Foundation
import Logging
import NetOps
import NetOpsHTTP
import Templater

/// The API scope of a chaos run's `.scoped` calls: the production stages in one chain, on the
/// run's session — an `HTTPCache` small enough to keep evicting, coalescing, a rate limiter with
/// a budget, a concurrency limit and the server's `Retry-After` honoured, and a circuit breaker —
/// against DemoServer's cache, counted and fault routes.
struct ChaosScope: Sendable {
    /// The methods of the scope, on DemoServer's routes.
    enum Method: String, APIMethod {
        /// `GET cacheable/{key}?maxAge=S&etag=1&items=1`: fresh hits, or 304s.
        case page
        /// `GET counted/{key}?delay=S`: never stored; identical calls in flight share one request.
        case counted
        /// `GET random-5xx?ok=P`.
        case flaky
        /// `GET random-429?ok=P&retryAfter=S`.
        case limited
        /// `GET reset/{size}`: the connection dropped mid-body.
        case reset
        /// `GET garbage`: 200 with a body that is not JSON.
        case garbage

        var path: String {
            switch self {
            case .page: "cacheable/{key}"
            case .counted: "counted/{key}"
            case .flaky: "random-5xx"
            case .limited: "random-429"
            case .reset: "reset/{size}"
            case .garbage: "garbage"
            }
        }
        var httpMethod: HTTPMethod { .get }
        var encoding: RequestEncoding { .query }
        var defaultParameters: Parameters { [:] }
        var templateName: String {
            switch self {
            case .page: "page"
            case .counted: "counted"
            case .flaky, .limited, .reset, .garbage: "ack"
            }
        }
    }

    /// `cacheable/{key}`'s answer (its items are checked by the template, not mapped).
    struct Page: Decodable, Sendable {
        let key: String
        let version: Int
    }

    /// `counted/{key}`'s answer.
    struct Counted: Decodable, Sendable {
        let key: String
        let served: Int
    }

    /// The answer of the routes that fail now and then, when they do not.
    struct Ack: Decodable, Sendable {
        let ok: Bool
    }

    let scope: APIScope
    let cache: HTTPCache
    let metrics: CountingMetrics

    /// The scope, on `session` against `base`, its templates written to `templates`.
    init(base: URL, session: NetworkSession, templates: URL, logger: Logger) throws {
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        let documents = [
            "page": DemoIssuePage.json(key: "k", version: 1, count: 1), "counted": #"{"key":"k","served":1}"#, "ack": #"{"ok":true}"#,
        ]
        for (name, text) in documents {
            try Data(text.utf8).write(to: templates.appendingPathComponent("\(name).json"))
        }
        cache = try HTTPCache(configuration: .init(maximumMemoryBytes: 48 << 10))
        metrics = CountingMetrics()
        var configuration = APIScope.Configuration(
            baseURL: base, templates: TemplateStore(directory: templates), session: session, logger: logger, metricsFactory: metrics)
        configuration.cache = cache
        configuration.coalescing = RequestCoalescer.Configuration()
        configuration.rateLimit = RateLimiter.Configuration(requestsPerInterval: 40, interval: 1, burst: 8, maximumConcurrentRequests: 6)
        configuration.circuitBreaker = CircuitBreaker.Configuration(failureThreshold: 3, coolDown: 0.2)
        scope = APIScope(name: "chaos-scope", configuration: configuration)
    }

    /// A call of the scope, its route drawn from `generator`: mostly pages and shared answers,
    /// often a fault.
    func makeCall(_ generator: inout SeededGenerator) -> (operation: BaseOperation, route: String) {
        let method: Method
        var properties: Parameters = [:]
        switch generator.next() % 100 {
        case 0..<25:
            method = .page
            properties = ["key": "fresh-\(generator.next() % 8)", "maxAge": 600, "etag": 1, "items": 1]
        case 25..<45:
            method = .page
            properties = ["key": "stale-\(generator.next() % 8)", "maxAge": 0, "etag": 1, "items": 1]
        case 45..<65:
            method = .counted
            properties = ["key": "shared-\(generator.next() % 2)", "delay": 0.3]
        case 65..<78:
            method = .flaky
            properties = ["ok": 0.6]
        case 78..<90:
            method = .limited
            properties = ["ok": 0.8, "retryAfter": 0.05]
        case 90..<96:
            method = .reset
            properties = ["size": 2 + Int(generator.next() % 40_000)]
        default:
            method = .garbage
        }
        let operation = APIManager.withDefaultAPI(scope) { () -> BaseOperation in
            switch method {
            case .page: return APIManager.operation(method, properties: properties, as: Page.self)
            case .counted: return APIManager.operation(method, properties: properties, as: Counted.self)
            case .flaky, .limited, .reset, .garbage: return APIManager.operation(method, properties: properties, as: Ack.self)
            }
        }
        let query = properties.keys.sorted().map { "\($0)=\(properties[$0].map { "\($0)" } ?? "")" }.joined(separator: "&")
        return (operation, "scope \(method.rawValue)\(query.isEmpty ? "" : "?\(query)")")
    }

    /// Writes how often the scope's stages acted into `report`.
    func fill(_ report: inout ChaosReport) {
        let lookups = "apilayer.cache.lookups"
        report.cacheHits = Int(metrics.total(lookups, "outcome", "hit"))
        report.cacheRevalidations = Int(metrics.total(lookups, "outcome", "revalidated"))
        report.coalesced = Int(metrics.total("apilayer.coalesced.requests"))
        report.rateLimitWaits = Int(metrics.total("apilayer.ratelimit.waits"))
        report.scopeCircuitOpens = Int(metrics.total("apilayer.circuit.transitions", "state", "open"))
    }
}
