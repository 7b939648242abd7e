import APILayer
import APILayerPostgres
import ArgumentParser
import Crypto
import Foundation
import LocalPostgres
import Logging
import NetOps
import PostgresNIO

/// `apilayer bench replicas`: a service's replicas (child processes running `apilayer replica`)
/// sharing one token through PostgreSQL (a private cluster this command starts with initdb),
/// against a DemoServer realm (its own child process) whose refresh tokens are single-use.
///
/// - `replica-refreshes`: the refreshes the token endpoint saw when `--replicas` processes make
///   `--calls` calls each at once on an expired token (target 1); `replica-failed-calls` (0);
/// - `replica-refresh-vs-local`: the fleet's storm's wall time against the same number of calls
///   in one process with a `FileTokenStore`;
/// - `replica-takeover-seconds`: a replica killed with SIGKILL while it holds the refresh lease
///   (the token endpoint holds its request unprocessed); seconds from the kill until another
///   replica has a token (target ≤ the lease + 1 s).
struct ReplicasBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replicas",
        abstract: "Replicas sharing a token through PostgreSQL: refreshes of a fleet-wide storm, and a takeover after SIGKILL."
    )

    @Option(help: "Replica processes in the storm.")
    var replicas = 8

    @Option(help: "Calls each replica makes at once.")
    var calls = 200

    @Option(help: "Seconds of the refresh lease.")
    var lease = 3.0

    @Option(help: "nio or urlsession.")
    var engine = "nio"

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    func run() async throws {
        let cluster = try LocalPostgresCluster.start(name: "bench-replicas")
        defer { cluster.stop() }
        let demo = try ServerProcess()
        defer { demo.stop() }
        let key = SymmetricKey(size: .bits256)
        let keyBytes = key.withUnsafeBytes { Data($0) }
        var logger = Logger(label: "apilayer.bench.replicas")
        logger.logLevel = .warning
        let client = PostgresClient(
            configuration: .init(unixSocketPath: cluster.socketPath, username: cluster.username, password: nil, database: cluster.database))
        let runner = Task { await client.run() }
        defer { runner.cancel() }
        let setup = Fleet(
            cluster: cluster, client: client, demo: demo.baseURL, key: key, keyBytes: keyBytes, lease: lease, engine: engine, logger: logger)
        try await setup.store(account: "migration").migrate()

        // The storm: every replica starts on the same expired token.
        let storm = try await setup.storm(replicas: replicas, calls: calls)
        let local = try await setup.localStorm(calls: replicas * calls)
        let takeover = try await setup.takeover()

        var figures = [
            BenchFigure(name: "replica-refreshes", value: Double(storm.refreshes), unit: "refreshes", target: "= 1"),
            BenchFigure(name: "replica-failed-calls", value: Double(storm.failed), unit: "calls", target: "= 0"),
            BenchFigure(
                name: "replica-refresh-vs-local", value: storm.seconds, baseline: local.seconds, unit: "s",
                target: "reported"),
            BenchFigure(name: "replica-takeover-seconds", value: takeover.seconds, unit: "s", target: "<= \(lease + 1)"),
        ]
        figures[0].baseline = nil
        BenchReport(
            suite: "replicas", figures: figures,
            notes: [
                "\(replicas) replica processes x \(calls) calls on an expired token; lease \(lease) s; engine \(engine)",
                "storm: \(storm.ok) calls succeeded, \(storm.pickUps) replicas picked the token up; local: \(local.ok) calls, \(local.refreshes) refresh",
                "takeover: refreshes the server saw \(takeover.refreshes), requests it stalled \(takeover.stalled)",
            ]
        ).print(json: json)
    }
}

/// What a benchmark's fleet shares: the database, DemoServer, the key.
private struct Fleet {
    let cluster: LocalPostgresCluster
    let client: PostgresClient
    let demo: URL
    let key: SymmetricKey
    let keyBytes: Data
    let lease: Double
    let engine: String
    let logger: Logger

    struct Storm {
        var ok = 0
        var failed = 0
        var refreshes = 0
        var pickUps = 0
        var seconds = 0.0
    }

    func store(account: String) throws -> PostgresTokenStore {
        var configuration = PostgresTokenStore.Configuration(api: "replicas")
        configuration.account = account
        configuration.lease = lease
        return try PostgresTokenStore(client: client, key: key, configuration: configuration, logger: logger)
    }

    /// A new realm with single-use refresh tokens (and `extra` settings), its URL.
    func realm(_ name: String, _ extra: [String: any Sendable] = [:]) async throws -> (name: String, url: URL) {
        let realm = "\(name)-\(UUID().uuidString.prefix(8))"
        let url = demo.appendingPathComponent("realm").appendingPathComponent(realm)
        try await DTO.post(url.appendingPathComponent("control"), parameters: extra.merging(["rotation": true]) { $1 }).run()
        return (realm, url)
    }

    /// What the realm's token endpoint counted.
    func counters(_ url: URL) async throws -> [String: Any] {
        let operation = try await DTO.get(url.appendingPathComponent("control")).run()
        return (operation.json as? [String: Any]) ?? [:]
    }

    /// An expired token whose refresh token the realm accepts once.
    static func expiredSeed() -> Token {
        Token(accessToken: "expired-\(UUID().uuidString)", refreshToken: "seed-\(UUID().uuidString)", expiresAt: Date(timeIntervalSinceNow: -60))
    }

    func arguments(realm: String, account: String, calls: Int) -> [String] {
        [
            "--url", demo.absoluteString, "--realm", realm, "--postgres-socket", cluster.socketPath, "--account", account,
            "--lease", "\(lease)", "--calls", "\(calls)", "--engine", engine,
        ]
    }

    func storm(replicas: Int, calls: Int) async throws -> Storm {
        let (realm, url) = try await realm("storm")
        let account = "storm-\(realm)"
        try await store(account: account).store(Self.expiredSeed())
        let processes = try (0..<replicas).map { _ in
            try ReplicaProcess(arguments: arguments(realm: realm, account: account, calls: calls) + ["--wait-for-go"], key: keyBytes)
        }
        for process in processes { try process.waitUntilReady() }
        for process in processes { process.go() }
        let reports = try processes.map { try $0.report() }
        var storm = Storm()
        storm.ok = reports.reduce(0) { $0 + $1.ok }
        storm.failed = reports.reduce(0) { $0 + $1.failed }
        storm.seconds = (reports.map(\.endedAt).max() ?? 0) - (reports.map(\.startedAt).min() ?? 0)
        let counters = try await counters(url)
        storm.refreshes = counters["refreshes"] as? Int ?? -1
        storm.pickUps = reports.count - 1
        if storm.failed > 0 { logger.warning("storm failures: \(reports.flatMap(\.errors).prefix(3))") }
        return storm
    }

    func localStorm(calls: Int) async throws -> (seconds: Double, ok: Int, refreshes: Int) {
        let (realm, _) = try await realm("local")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-bench-\(UUID().uuidString).token")
        defer { try? FileManager.default.removeItem(at: file) }
        try FileTokenStore(fileURL: file).save(Self.expiredSeed())
        let process = try ReplicaProcess(
            arguments: arguments(realm: realm, account: "local", calls: calls) + ["--store", "file", "--token-file", file.path, "--wait-for-go"],
            key: keyBytes)
        try process.waitUntilReady()
        process.go()
        let report = try process.report()
        guard report.failed == 0 else { throw ReplicaFailure("the local storm failed \(report.failed) calls: \(report.errors)") }
        return (report.endedAt - report.startedAt, report.ok, report.refreshes)
    }

    /// A replica holding the lease is killed while the token endpoint holds its request; a second
    /// replica, waiting, takes over when the lease runs out.
    func takeover() async throws -> (seconds: Double, refreshes: Int, stalled: Int) {
        // The stall outlasts the kill, and ends soon after, so DemoServer stops without waiting long.
        let (realm, url) = try await realm("takeover", ["stallRefreshes": 1, "stallSeconds": lease + 2])
        let account = "takeover-\(realm)"
        try await store(account: account).store(Self.expiredSeed())
        let holder = try ReplicaProcess(arguments: arguments(realm: realm, account: account, calls: 1), key: keyBytes)
        try holder.waitUntilReady()
        let started = Date()
        while try cluster.psql("SELECT lease_holder FROM apilayer_tokens WHERE account = '\(account)' AND lease_until > now()")
            .hasSuffix(":\(holder.pid)") == false
        {
            guard Date().timeIntervalSince(started) < 30 else { throw ReplicaFailure("the first replica never took the lease") }
            try await Task.sleep(for: .milliseconds(20))
        }
        let successor = try ReplicaProcess(arguments: arguments(realm: realm, account: account, calls: 1), key: keyBytes)
        try successor.waitUntilReady()
        try await Task.sleep(for: .milliseconds(200))
        holder.kill()
        let killed = Date().timeIntervalSince1970
        let report = try successor.report()
        guard let tokenAt = report.firstTokenAt, report.failed == 0 else {
            throw ReplicaFailure("the successor did not get a token: \(report.errors)")
        }
        let counters = try await counters(url)
        return (tokenAt - killed, counters["refreshes"] as? Int ?? -1, counters["stalledRefreshes"] as? Int ?? -1)
    }
}
