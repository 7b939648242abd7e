import APILayer
import ArgumentParser
import DemoServer
import Foundation
import Logging
import NetOps
import NetOpsHTTP
import NetOpsNIO
import Templater
import Validator

/// `apilayer bench http`: what the HTTP-semantics stages save or hold, each against the same
/// load without the stage, in one run (DemoServer in a child process).
struct HTTPBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http",
        abstract: "Caching, coalescing and rate limits: each stage against the same load without it (DemoServer, or nginx for the cache)."
    )

    @Option(help: "Identical GETs started together for the coalescing figure.")
    var calls = 100

    @Option(help: "Seconds of demand for the rate-limit figures.")
    var seconds = 10.0

    @Option(help: "Calls per second the rate-limit demand starts.")
    var demand = 200.0

    @Option(help: "The rate limit's budget, calls per second.")
    var budget = 50

    @Option(help: "Sequential calls per round of the cache figures.")
    var cacheCalls = 2000

    @Option(help: "Only these groups of figures, comma-separated: cache, coalescing, rate-limit (default: all; with --server nginx, cache).")
    var only: String?

    @OptionGroup var server: BenchServer

    @Option(help: "The engine: nio or urlsession.")
    var engine = "nio"

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    /// `GET /counted/{key}`: counts what reaches the server.
    enum Counted: String, APIMethod {
        case counted
        var path: String { "counted/{key}" }
        var httpMethod: HTTPMethod { .get }
        var encoding: RequestEncoding { .query }
        var defaultParameters: Parameters { [:] }
        var validation: ValidationPolicy { .custom { _ in [] } }
    }

    /// `GET /limited`: the server's own budget, whose refusals are the overshoot.
    enum Limited: String, APIMethod {
        case limited
        var httpMethod: HTTPMethod { .get }
        var encoding: RequestEncoding { .query }
        var defaultParameters: Parameters { [:] }
        var validation: ValidationPolicy { .custom { _ in [] } }
    }

    /// `GET /cacheable/{key}`: a page of issues, validated against the bench's template.
    enum Cacheable: String, APIMethod {
        case cacheable
        var path: String { "cacheable/{key}" }
        var httpMethod: HTTPMethod { .get }
        var encoding: RequestEncoding { .query }
        var defaultParameters: Parameters { [:] }
    }

    /// The fields of the page `Cacheable` answers that a service reads (GitHub's issue has
    /// some forty more, validated against the template but not mapped).
    struct IssuePage: Decodable, Sendable {
        struct Issue: Decodable, Sendable {
            struct Label: Decodable, Sendable {
                let name: String
                let color: String
            }
            struct User: Decodable, Sendable {
                let login: String
                let id: Int
            }
            let id: Int
            let number: Int
            let title: String
            let state: String
            let htmlUrl: String
            let labels: [Label]
            let user: User
            let comments: Int
            let createdAt: String
            let body: String?
        }
        let key: String
        let version: Int
        let items: [Issue]
    }

    /// `Cacheable`'s template: a page of one issue of the same shape (every field typed).
    static let issuePageTemplate = DemoIssuePage.json(key: "k", version: 1, count: 1)

    /// Any JSON object: the figures count requests, not what they bring.
    struct Answer: Decodable, Sendable {}

    struct Stats: Decodable {
        let served: Int
        let refused: Int?
    }

    /// The groups of figures `--only` chooses among.
    enum Group: String, CaseIterable {
        case cache
        case coalescing
        case rateLimit = "rate-limit"
    }

    func run() async throws {
        guard engine == "nio" || engine == "urlsession" else { throw ValidationError("--engine is nio or urlsession") }
        let groups = try chosenGroups()
        let (base, stop) = try server.start(documents: ["cacheable/fresh": Self.issuePage, "cacheable/revalidated": Self.issuePage])
        defer { stop?() }
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        var figures: [BenchFigure] = []
        var notes = ["engine \(engine); \(server.label)"]

        if groups.contains(.cache) {
            let templates = try Self.benchTemplates()
            defer { try? FileManager.default.removeItem(at: templates.directory) }
            let fresh: Parameters = server.servesDemoRoutes ? ["maxAge": 600] : ["key": "fresh"]
            let stale: Parameters = server.servesDemoRoutes ? ["maxAge": 0, "etag": 1] : ["key": "revalidated"]
            let network = try await cacheRound(base: base, logger: logger, templates: templates, query: fresh, cached: false)
            let hit = try await cacheRound(base: base, logger: logger, templates: templates, query: fresh, cached: true)
            let full = try await cacheRound(base: base, logger: logger, templates: templates, query: stale, cached: false)
            let revalidated = try await cacheRound(base: base, logger: logger, templates: templates, query: stale, cached: true)
            figures += [
                BenchFigure(
                    name: "cache-fresh-hit-vs-network", value: hit.microseconds, baseline: network.microseconds, unit: "µs/call", target: "≤ 0.05"),
                BenchFigure(
                    name: "cache-revalidated-cpu", value: revalidated.cpuMicroseconds, baseline: full.cpuMicroseconds, unit: "µs CPU/call",
                    target: "≤ 0.3"),
            ]
            notes += [
                "cache-fresh-hit-vs-network: mean time of \(cacheCalls) sequential awaited calls of a page of 30 GitHub-shaped issues "
                    + "(\(Self.issuePage.count / 1024) KiB, validated against a template, ten fields an issue mapped) answered by a fresh entry of the scope's HTTPCache; baseline: the same calls without a cache, each a network request "
                    + "(CPU per call: \(Self.format(hit.cpuMicroseconds)) µs vs \(Self.format(network.cpuMicroseconds)) µs)",
                "cache-revalidated-cpu: CPU (user + system, this process) per call when every call is revalidated and answered 304, the model "
                    + "reused; baseline: the same calls without a cache, each a 200 parsed, validated and mapped (time per call: "
                    + "\(Self.format(revalidated.microseconds)) µs vs \(Self.format(full.microseconds)) µs)",
            ]
        }
        if groups.contains(.coalescing) {
            guard server.servesDemoRoutes else { throw ValidationError("the coalescing figures need DemoServer's routes: --only cache with nginx") }
            let coalesced = try await coalescingRound(base: base, logger: logger, coalescing: true)
            let separate = try await coalescingRound(base: base, logger: logger, coalescing: false)
            figures.append(
                BenchFigure(name: "coalesced-requests", value: Double(coalesced), baseline: Double(separate), unit: "requests", target: "= 1"))
            notes.append(
                "coalesced-requests: requests the server received for \(calls) identical GETs started together (0.05 s answer); baseline: the same without coalescing"
            )
        }
        if groups.contains(.rateLimit) {
            guard server.servesDemoRoutes else { throw ValidationError("the rate-limit figures need DemoServer's routes: --only cache with nginx") }
            let limited = try await rateLimitRound(base: base, logger: logger, clientBudget: true)
            let unlimited = try await rateLimitRound(base: base, logger: logger, clientBudget: false)
            figures += [
                BenchFigure(
                    name: "rate-limit-overshoot", value: Double(limited.refused), baseline: Double(unlimited.refused), unit: "requests",
                    target: "= 0"),
                BenchFigure(
                    name: "rate-limit-replayed", value: Double(limited.completed), baseline: Double(limited.started), unit: "calls",
                    target: "= all"),
            ]
            notes += [
                "rate-limit-overshoot: requests the server refused over its budget of \(budget)/s, for \(Int(seconds)) s of \(Int(demand)) calls/s, "
                    + "with the scope's budget (\(budget)/s, burst 1); baseline: the server's limits only (its 429s and budget headers honoured)",
                "rate-limit-replayed: calls that completed with 200, of those started, with the scope's budget (its maximumParkedCalls and maximumWait sized for the demand)",
            ]
        }
        BenchReport(suite: "http", figures: figures, notes: notes).print(json: json)
    }

    /// The groups `--only` names (all by default; with nginx, the cache's only).
    private func chosenGroups() throws -> Set<Group> {
        guard let only else { return server.servesDemoRoutes ? Set(Group.allCases) : [.cache] }
        var chosen = Set<Group>()
        for name in only.split(separator: ",") {
            guard let group = Group(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("--only takes cache, coalescing, rate-limit (comma-separated), not \(name)")
            }
            chosen.insert(group)
        }
        return chosen
    }

    private static func format(_ value: Double) -> String {
        String(Int(value.rounded()))
    }

    /// The 30-issue page nginx serves, as DemoServer's `/cacheable/{key}?items=30` answers it.
    static let issuePage = Data(DemoIssuePage.json(key: "static", version: 1, count: 30).utf8)

    /// A template folder holding `Cacheable`'s template.
    private static func benchTemplates() throws -> TemplateStore {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(issuePageTemplate.utf8).write(to: folder.appendingPathComponent("cacheable.json"))
        return TemplateStore(directory: folder)
    }

    /// `cacheCalls` sequential calls of one 30-issue page (after 50 to warm up); mean wall and
    /// CPU time per call.
    private func cacheRound(
        base: URL, logger: Logger, templates: TemplateStore, query: Parameters, cached: Bool
    ) async throws -> (microseconds: Double, cpuMicroseconds: Double) {
        var configuration = APIScope.Configuration(baseURL: base, templates: templates, session: session(), logger: logger)
        if cached { configuration.cache = try HTTPCache() }
        let scope = APIScope(name: "bench-cache", configuration: configuration)
        var properties = query
        if properties["key"] == nil { properties["key"] = UUID().uuidString }
        properties["items"] = 30
        let call = { [properties] in
            try await APIManager.withDefaultAPI(scope) { try await APIManager.call(Cacheable.cacheable, properties: properties, as: IssuePage.self) }
        }
        for _ in 0..<50 { _ = try await call() }
        let clock = ContinuousClock()
        let cpuBefore = ProcessMetrics.cpuSeconds()
        let started = clock.now
        for _ in 0..<cacheCalls { _ = try await call() }
        let elapsed = started.duration(to: clock.now)
        let cpu = ProcessMetrics.cpuSeconds() - cpuBefore
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (seconds / Double(cacheCalls) * 1e6, cpu / Double(cacheCalls) * 1e6)
    }

    private func session() -> NetworkSession {
        if engine == "nio" { return NetworkSession.nio(configuration: NIOEngineConfiguration(concurrency: 64)) }
        let configuration = NetworkSession.defaultConfiguration()
        configuration.httpMaximumConnectionsPerHost = 64
        return NetworkSession(configuration: configuration)
    }

    /// `calls` identical GETs at once; the requests the server received.
    private func coalescingRound(base: URL, logger: Logger, coalescing: Bool) async throws -> Int {
        var configuration = APIScope.Configuration(baseURL: base, session: session(), logger: logger)
        if coalescing { configuration.coalescing = RequestCoalescer.Configuration() }
        let scope = APIScope(name: "bench-coalescing", configuration: configuration)
        let key = UUID().uuidString
        let operations = APIManager.withDefaultAPI(scope) {
            (0..<calls).map { _ in APIManager.operation(Counted.counted, properties: ["key": key, "delay": 0.05], as: Answer.self) }
        }
        for operation in operations { operation.start() }
        for operation in operations { await operation.finished() }
        let failed = operations.filter { $0.state != .successFinished }.count
        guard failed == 0 else { throw ValidationError("\(failed) of the coalescing round's calls failed") }
        return try await stats(base.appendingPathComponent("counted-stats/\(key)")).served
    }

    /// `demand` calls per second for `seconds`, against the server's budget of `budget` per second.
    private func rateLimitRound(
        base: URL, logger: Logger, clientBudget: Bool
    ) async throws -> (refused: Int, completed: Int, started: Int) {
        var configuration = APIScope.Configuration(baseURL: base, session: session(), logger: logger)
        configuration.totalTimeout = nil
        let total = Int(seconds * demand)
        if clientBudget {
            // Sized for this demand: the limiter's defaults (1 000 parked calls, 60 s of wait)
            // refuse calls past them by design, and this figure measures the replay, not the cap.
            configuration.rateLimit = RateLimiter.Configuration(
                requestsPerInterval: budget, interval: 1, burst: 1, maximumWait: Double(total) / Double(max(1, budget)) + 10,
                maximumParkedCalls: total)
        }
        let scope = APIScope(name: "bench-ratelimit", configuration: configuration)
        let key = UUID().uuidString
        let spacing = 1 / demand
        let properties: Parameters = ["key": key, "budget": budget, "window": 1]
        var operations: [APIOperation<Answer>] = []
        let clock = ContinuousClock()
        let started = clock.now
        for index in 0..<total {
            let due = started.advanced(by: .seconds(Double(index) * spacing))
            if due > clock.now { try await Task.sleep(until: due, clock: clock) }
            let operation = APIManager.withDefaultAPI(scope) { APIManager.operation(Limited.limited, properties: properties, as: Answer.self) }
            operation.start()
            operations.append(operation)
        }
        for operation in operations { await operation.finished() }
        let completed = operations.filter { $0.state == .successFinished }.count
        let refused = try await stats(base.appendingPathComponent("limited-stats/\(key)")).refused ?? 0
        return (refused, completed, total)
    }

    private func stats(_ url: URL) async throws -> Stats {
        try JSONDecoder().decode(Stats.self, from: try await DTO.get(url).run().receivedData)
    }
}
