import APILayer
import APILayerPostgres
import ArgumentParser
import Crypto
import Foundation
import Logging
import NetOps
import NetOpsNIO
import PostgresNIO

/// `apilayer replica`: one replica of a service, as `bench replicas` and the tests start several
/// of: an API scope whose token lives in PostgreSQL (`PostgresTokenStore`, key from
/// `APILAYER_TOKEN_KEY`, base64) or in a file, and `--calls` calls at once to a DemoServer
/// realm's protected route. Prints `ready` once set up (then waits for `go` on standard input
/// with `--wait-for-go`), and at the end one JSON object: how the calls ended and when.
struct ReplicaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replica",
        abstract: "One replica of a service calling a DemoServer realm with a token shared through PostgreSQL.",
        shouldDisplay: false
    )

    @Option(help: "A DemoServer's base URL.")
    var url: String

    @Option(help: "The DemoServer realm whose token endpoint and protected route are called.")
    var realm: String

    @Option(help: "postgres (the shared store) or file (a FileTokenStore at --token-file).")
    var store = "postgres"

    @Option(help: "The file store's path.")
    var tokenFile: String?

    @Option(help: "PostgreSQL's port on 127.0.0.1 (user apilayer, database postgres, no password).")
    var postgresPort = 5432

    @Option(help: "PostgreSQL's Unix socket (a LocalPostgresCluster's socketPath): used instead of --postgres-port when given.")
    var postgresSocket: String?

    @Option(help: "The token's API name (the row's api).")
    var api = "replicas"

    @Option(help: "The token's account (the row's account).")
    var account = "default"

    @Option(help: "Seconds of the refresh lease.")
    var lease = 15.0

    @Option(help: "Seconds a replica waits for another's refresh.")
    var lockWait = 30.0

    @Option(help: "Calls at once.")
    var calls = 200

    @Option(help: "Seconds each call may take, parked time included.")
    var callTimeout = 30.0

    @Option(help: "nio or urlsession.")
    var engine = "nio"

    @Flag(help: "Wait for a line `go` on standard input before calling.")
    var waitForGo = false

    func run() async throws {
        guard let base = URL(string: url)?.appendingPathComponent("realm").appendingPathComponent(realm) else {
            throw ValidationError("--url is not a URL")
        }
        var logger = Logger(label: "apilayer.replica")
        logger.logLevel = .warning
        let session: NetworkSession
        switch engine {
        case "nio": session = .nio()
        case "urlsession": session = NetworkSession()
        default: throw ValidationError("--engine is nio or urlsession")
        }
        var postgres: PostgresClient?
        let tokenStore: any TokenStore
        switch store {
        case "postgres":
            let client = PostgresClient(
                configuration: postgresSocket.map {
                    PostgresClient.Configuration(unixSocketPath: $0, username: "apilayer", password: nil, database: "postgres")
                } ?? .init(host: "127.0.0.1", port: postgresPort, username: "apilayer", password: nil, database: "postgres", tls: .disable))
            postgres = client
            var configuration = PostgresTokenStore.Configuration(api: api)
            configuration.account = account
            configuration.lease = lease
            configuration.lockWaitTimeout = lockWait
            tokenStore = try PostgresTokenStore(client: client, key: try Self.key(), configuration: configuration, logger: logger)
        case "file":
            guard let tokenFile else { throw ValidationError("--store file needs --token-file") }
            tokenStore = FileTokenStore(fileURL: URL(fileURLWithPath: tokenFile))
        default:
            throw ValidationError("--store is postgres or file")
        }
        let runner = Task { [postgres] in await postgres?.run() }
        defer { runner.cancel() }

        let scope = APIScope(name: api, configuration: APIScope.Configuration(baseURL: base, session: session, logger: logger))
        var authentication = AuthenticationCoordinator.Configuration()
        authentication.refreshTimeout = lockWait + lease + 5
        let coordinator = scope.configureAuthentication(
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: base.appendingPathComponent("oauth/token")), store: tokenStore,
            configuration: authentication)
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        if waitForGo {
            while let line = readLine(), line != "go" {}
        }
        let ledger = ReplicaLedger()
        let startedAt = Date().timeIntervalSince1970
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<calls {
                group.addTask {
                    let operation = DataTaskOperation.get(base.appendingPathComponent("protected"))
                    scope.adopt(operation)
                    // After `adopt`, which gives the operation the API's total timeout.
                    operation.totalTimeout = callTimeout
                    do {
                        try await operation.run()
                        ledger.succeeded()
                    } catch {
                        ledger.failed(String(describing: error))
                    }
                }
            }
        }
        let endedAt = Date().timeIntervalSince1970
        let summary = ledger.summary
        let report = ReplicaReport(
            ok: summary.ok, failed: summary.failed, startedAt: startedAt, endedAt: endedAt, firstTokenAt: summary.firstOK,
            refreshes: coordinator.refreshCount, errors: Array(summary.errors.prefix(3)))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        FileHandle.standardOutput.write(try encoder.encode(report) + Data("\n".utf8))
        try? await session.shutdown()
    }

    /// The sealing key, from `APILAYER_TOKEN_KEY` (base64 of 32 bytes): never an argument, which
    /// other users of the machine can read.
    static func key() throws -> SymmetricKey {
        guard let text = ProcessInfo.processInfo.environment["APILAYER_TOKEN_KEY"], let bytes = Data(base64Encoded: text), bytes.count == 32
        else { throw ValidationError("APILAYER_TOKEN_KEY must hold a 256-bit key in base64") }
        return SymmetricKey(data: bytes)
    }
}

/// What `apilayer replica` prints at the end.
struct ReplicaReport: Codable, Sendable {
    /// Calls answered 200.
    var ok: Int
    /// Calls that failed.
    var failed: Int
    /// When the calls began and ended (seconds since 1970).
    var startedAt: Double
    var endedAt: Double
    /// When the first call succeeded: the replica had a token.
    var firstTokenAt: Double?
    /// Refreshes the replica's coordinator ran (a pick-up of another replica's token counts).
    var refreshes: Int
    /// The first few failures' reasons.
    var errors: [String]
}

/// How a replica's calls ended.
private final class ReplicaLedger: Sendable {
    struct Summary {
        var ok = 0
        var failed = 0
        var firstOK: Double?
        var errors: [String] = []
    }

    private let state = Locked(Summary())

    var summary: Summary { state.withLock { $0 } }

    func succeeded() {
        let now = Date().timeIntervalSince1970
        state.withLock { summary in
            summary.ok += 1
            if summary.firstOK == nil { summary.firstOK = now }
        }
    }

    func failed(_ reason: String) {
        state.withLock { summary in
            summary.failed += 1
            if summary.errors.count < 3 { summary.errors.append(reason) }
        }
    }
}
