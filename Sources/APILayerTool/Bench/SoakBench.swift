import APILayer
import ArgumentParser
import Chaos
import Foundation
import Logging
import NetOps
import NetOpsHTTP
import NetOpsNIO

/// `apilayer bench soak`: a million API calls through one scope with the HTTP cache, coalescing,
/// the rate limiter and the circuit breaker on, some cancelled and some suspended and resumed,
/// against a server that answers 304s, 429s and 503s; then what they left behind: resident
/// memory and open file descriptors grown since the first tenth of the run, and calls that
/// never ended or ended twice.
struct SoakBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract:
            "A million API calls through one scope (cache, coalescing, rate limiter, breaker; cancels, suspensions, 304s, 429s, 503s): memory, descriptors and calls left behind."
    )

    @Option(help: "API calls to make.")
    var calls = 1_000_000

    @Option(help: "Calls in flight at once: tasks that each make one call after another.")
    var concurrency = 64

    @Option(help: "The engine: nio or urlsession.")
    var engine = "nio"

    @Option(name: .customLong("cancel-per-mille"), help: "Calls cancelled, per thousand, a few milliseconds after they were made.")
    var cancelPerMille = 20

    @Option(
        name: .customLong("suspend-per-mille"),
        help: "Calls suspended, per thousand, a few milliseconds after they were made, and resumed a few milliseconds later.")
    var suspendPerMille = 20

    @Option(help: "Seconds without any call ending, while some are unfinished, after which the rest count as lost.")
    var stallLimit = 60.0

    @OptionGroup var server: BenchServer

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    func validate() throws {
        guard calls >= 10 else { throw ValidationError("--calls must be at least 10") }
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be positive") }
        guard engine == "nio" || engine == "urlsession" else { throw ValidationError("--engine is nio or urlsession") }
        guard cancelPerMille >= 0, suspendPerMille >= 0, cancelPerMille + suspendPerMille <= 1_000 else {
            throw ValidationError("--cancel-per-mille and --suspend-per-mille are shares of 1000, together at most 1000")
        }
        guard server.server != .nginxTLS else { throw ValidationError("--server is demo or nginx") }
    }

    func run() async throws {
        let (base, stop) = try server.start(documents: ["page.json": Data(SoakModels.page.utf8)], locations: SoakMix.nginxLocations)
        defer { stop?() }
        let templates = try SoakModels.templates()
        defer { try? FileManager.default.removeItem(at: templates.directory) }
        let metrics = CountingMetrics()
        let session = makeSession()
        // Each 429 and each opened circuit logs a warning: thousands in a run.
        var logger = Logger(label: "apilayer.soak")
        logger.logLevel = .error
        var configuration = APIScope.Configuration(
            baseURL: base, templates: templates, session: session, logger: logger, metricsFactory: metrics)
        // Small enough that the 512 pages of the mix keep evicting each other.
        configuration.cache = try HTTPCache(configuration: .init(maximumMemoryBytes: 1 << 20))
        configuration.coalescing = RequestCoalescer.Configuration()
        // The server's Retry-After honoured (the default), and fewer slots than callers: a
        // quarter of the callers always wait for one.
        configuration.rateLimit = RateLimiter.Configuration(maximumConcurrentRequests: max(1, concurrency * 3 / 4))
        configuration.circuitBreaker = CircuitBreaker.Configuration(failureThreshold: 5, coolDown: 0.05)
        configuration.retryPolicy = RetryPolicy(maximumAttempts: 2, retryBudget: 0.05, baseDelay: 0.002, maximumDelay: 0.01)
        configuration.totalTimeout = 10
        APIScope.soak.configuration = configuration

        let ledger = SoakLedger(calls: calls)
        let driver = SoakDriver(ledger: ledger, cancelPerMille: cancelPerMille, suspendPerMille: suspendPerMille)
        let tenth = calls / 10
        let clock = ContinuousClock()
        var started = clock.now
        var settled = await driver.run(0..<tenth, concurrency: concurrency, stallLimit: stallLimit)
        var elapsed = started.duration(to: clock.now)
        let early = await Self.quiescentReading(probe: base, session: session)
        // The rest a tenth at a time, the resident size read after each (without the quiet
        // time): whether memory grows with the calls or levels off.
        let earlyHeap = ProcessMetrics.heapInUseBytes()
        var trend = [early.residentBytes]
        var heapTrend = [earlyHeap]
        for part in 1..<10 where settled {
            let range = (calls * part / 10)..<(part == 9 ? calls : calls * (part + 1) / 10)
            started = clock.now
            settled = await driver.run(range, concurrency: concurrency, stallLimit: stallLimit)
            elapsed += started.duration(to: clock.now)
            ProcessMetrics.returnFreedMemory()
            trend.append(ProcessMetrics.residentBytes())
            heapTrend.append(ProcessMetrics.heapInUseBytes())
        }
        let late = await Self.quiescentReading(probe: base, session: session)
        let lateHeap = ProcessMetrics.heapInUseBytes()
        let lost = ledger.lost(in: 0..<calls)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let mebibyte = Double(1 << 20)
        let disturbances = driver.disturbances
        let (outcomes, unexpected) = ledger.outcomes
        let lookups = "apilayer.cache.lookups"
        var figures = [
            BenchFigure(
                name: "soak-rss-growth-mib", value: Double(late.residentBytes - early.residentBytes) / mebibyte, unit: "MiB", target: "<= 8"),
            BenchFigure(name: "soak-open-fds-growth", value: Double(late.descriptors - early.descriptors), unit: "fds", target: "= 0"),
            BenchFigure(name: "soak-lost-calls", value: Double(lost.neverEnded + lost.endedTwice), unit: "calls", target: "= 0"),
            BenchFigure(name: "soak-calls-per-second", value: Double(calls) / seconds, unit: "calls/s"),
        ]
        if let earlyHeap, let lateHeap {
            // The heap glibc counts as allocated, read beside the resident size: a leak grows
            // both, memory the allocator keeps in partly used pages grows the resident size only.
            figures.insert(
                BenchFigure(name: "soak-heap-growth-mib", value: Double(lateHeap - earlyHeap) / mebibyte, unit: "MiB", target: nil), at: 1)
        }
        figures += [
            ("soak-cache-hits", metrics.total(lookups, "outcome", "hit")),
            ("soak-cache-revalidated", metrics.total(lookups, "outcome", "revalidated")),
            ("soak-coalesced", metrics.total("apilayer.coalesced.requests")),
            ("soak-rate-limit-waits", metrics.total("apilayer.ratelimit.waits")),
            ("soak-circuit-opens", metrics.total("apilayer.circuit.transitions", "state", "open")),
            ("soak-cancelled", Int64(disturbances.cancels)),
            ("soak-suspended", Int64(disturbances.suspensions)),
        ].map { BenchFigure(name: $0.0, value: Double($0.1), unit: "calls") }
        var notes = [
            "server: \(server.label); engine \(engine); \(calls) calls, \(concurrency) at once, through one APIScope with an HTTPCache "
                + "(1 MiB), coalescing, a RateLimiter (Retry-After honoured, \(max(1, concurrency * 3 / 4)) requests in flight at most), "
                + "a CircuitBreaker (5 failures, 0.05 s) and one retry",
            "mix: 30 % pages with a lifetime (256 keys), 25 % pages revalidated by ETag (256 keys), 25 % answers shared in flight "
                + "(4 keys), 16 % answered 5xx one time in 16, 4 % answered 429 (Retry-After \(SoakMix.retryAfter) s) one time in 32, "
                + "and \(SoakMix.stormLength) calls in a row answered 503 every \(SoakMix.stormEvery); "
                + "\(cancelPerMille) ‰ cancelled, \(suspendPerMille) ‰ suspended and resumed",
            String(
                format:
                    "RSS after the first 10 %%: %.1f MiB, after the run: %.1f MiB; open descriptors: %d, then %d (each read with no call in flight, 3 s after the last ended, after malloc_trim)",
                Double(early.residentBytes) / mebibyte, Double(late.residentBytes) / mebibyte, early.descriptors, late.descriptors),
            "RSS after each tenth of the calls, MiB: " + trend.map { String(format: "%.1f", Double($0) / mebibyte) }.joined(separator: ", "),
            "heap in use after each tenth (malloc_info), MiB: "
                + heapTrend.map { $0.map { String(format: "%.1f", Double($0) / mebibyte) } ?? "?" }.joined(separator: ", "),
            "operations still alive after the run: \(ledger.watchedAlive.alive) of the \(ledger.watchedAlive.watched) watched "
                + "(one call in \(SoakLedger.sampling), by a weak reference)",
            "lost: \(lost.neverEnded) never ended (or their waiter never returned), \(lost.endedTwice) ended twice"
                + (settled ? "" : "; the run stalled: nothing ended for \(Int(stallLimit)) s"),
            "ends: " + outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "),
            String(format: "%.1f s of calls", seconds),
        ]
        notes.append(
            "descriptors after the run: "
                + late.descriptorKinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        let changes = late.descriptorChanges(since: early)
        if !changes.isEmpty { notes.append("descriptors that changed: \(changes)") }
        notes += unexpected.map { "unexpected failure: \($0)" }
        BenchReport(suite: "soak", figures: figures, notes: notes).print(json: json)
        if settled { try? await session.shutdownNIOEngine() }
    }

    /// The session of the scope: `--engine`'s, as many connections per host as callers.
    private func makeSession() -> NetworkSession {
        if engine == "nio" {
            var configuration = NIOEngineConfiguration(concurrency: concurrency)
            // Idle connections close within the quiet time before each reading, whatever the server.
            configuration.idleConnectionTimeout = 1
            return .nio(configuration: configuration)
        }
        let configuration = NetworkSession.defaultConfiguration()
        configuration.httpMaximumConnectionsPerHost = concurrency
        return NetworkSession(configuration: configuration)
    }

    /// Resident bytes and open descriptors with no call in flight, after `malloc_trim` handed
    /// freed memory back. The soak's nginx closes keep-alive connections idle for a second: 1.5 s
    /// after the last call ended no engine holds a live idle connection; one plain request then
    /// lets libcurl close those the server closed (it looks at its cache only when it makes a
    /// transfer), and 1.5 s later the server closed that one too.
    private static func quiescentReading(probe base: URL, session: NetworkSession) async -> Reading {
        try? await Task.sleep(for: .milliseconds(1_500))
        let probe = DTO.get(base.appendingPathComponent("counted/probe"))
        probe.privateSession = session
        _ = try? await probe.run()
        try? await Task.sleep(for: .milliseconds(1_500))
        ProcessMetrics.returnFreedMemory()
        return Reading(
            residentBytes: ProcessMetrics.residentBytes(), descriptors: ProcessMetrics.openFileDescriptors(),
            descriptorKinds: ProcessMetrics.openFileDescriptorKinds())
    }

    /// What a quiescent reading found.
    private struct Reading {
        let residentBytes: Int64
        let descriptors: Int
        let descriptorKinds: [String: Int]

        /// The kinds of descriptors whose count changed since `earlier`, e.g. `socket +1`.
        func descriptorChanges(since earlier: Reading) -> String {
            let kinds = Set(descriptorKinds.keys).union(earlier.descriptorKinds.keys)
            return kinds.sorted().compactMap { kind in
                let change = (descriptorKinds[kind] ?? 0) - (earlier.descriptorKinds[kind] ?? 0)
                return change == 0 ? nil : "\(kind) \(change > 0 ? "+" : "")\(change)"
            }.joined(separator: ", ")
        }
    }
}
