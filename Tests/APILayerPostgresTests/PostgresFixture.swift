import APILayer
import APILayerPostgres
import Crypto
import DemoServer
import Foundation
import LocalPostgres
import Logging
import NetOps
import PostgresNIO
import TestSupport
import Testing

/// One private PostgreSQL cluster for the tests running at the same time: started by the first,
/// stopped when the last ends (so none stays behind the test process).
actor PostgresFixture {
    static let shared = PostgresFixture()

    private var cluster: LocalPostgresCluster?
    private var users = 0

    /// Runs `body` with the cluster (and a running client on it), the table migrated.
    static func with<Result: Sendable>(_ body: @Sendable (LocalPostgresCluster, PostgresClient) async throws -> Result) async throws -> Result {
        let cluster = try await shared.acquire()
        let client = PostgresClient(configuration: configuration(cluster))
        let runner = Task { await client.run() }
        do {
            let result = try await body(cluster, client)
            runner.cancel()
            await shared.release()
            return result
        } catch {
            runner.cancel()
            await shared.release()
            throw error
        }
    }

    /// Runs `body` with a cluster of its own, for a test that stops the database (the shared
    /// one would fail the tests running beside it).
    static func withOwnCluster<Result: Sendable>(
        _ body: @Sendable (LocalPostgresCluster, PostgresClient) async throws -> Result
    ) async throws -> Result {
        let cluster = try LocalPostgresCluster.start(name: "tests-own")
        defer { cluster.stop() }
        _ = try cluster.psql(TokenTableSQL.migration)
        let client = PostgresClient(configuration: configuration(cluster))
        let runner = Task { await client.run() }
        defer { runner.cancel() }
        return try await body(cluster, client)
    }

    /// A client of a server on 127.0.0.1:`port` (for a port where none listens).
    static func configuration(port: Int) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: "127.0.0.1", port: port, username: "apilayer", password: nil, database: "postgres", tls: .disable)
        configuration.options.connectTimeout = .seconds(2)
        return configuration
    }

    /// A client of `cluster`, through its private Unix socket.
    static func configuration(_ cluster: LocalPostgresCluster) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            unixSocketPath: cluster.socketPath, username: cluster.username, password: nil, database: cluster.database)
        configuration.options.connectTimeout = .seconds(2)
        return configuration
    }

    private func acquire() throws -> LocalPostgresCluster {
        users += 1
        if let cluster { return cluster }
        do {
            let started = try LocalPostgresCluster.start(name: "tests")
            _ = try started.psql(TokenTableSQL.migration)
            cluster = started
            return started
        } catch {
            users -= 1
            throw error
        }
    }

    private func release() {
        users -= 1
        guard users == 0, let cluster else { return }
        cluster.stop()
        self.cluster = nil
    }
}

/// The migration, as the store writes it.
enum TokenTableSQL {
    static let migration = (try? PostgresTokenStore.migrationSQL()) ?? ""
}

/// What the tests share: a key, stores, a realm of DemoServer.
enum Shared {
    /// The tests' sealing key's bytes (`SymmetricKey` is not `Sendable`).
    static let keyBytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
    static var key: SymmetricKey { SymmetricKey(data: keyBytes) }

    /// A store of a unique account (so tests running at the same time never meet).
    static func store(
        _ client: PostgresClient, account: String, key: SymmetricKey = Shared.key, logger: Logger = Logger(label: "test"),
        _ adjust: (inout PostgresTokenStore.Configuration) -> Void = { _ in }
    ) throws -> PostgresTokenStore {
        var configuration = PostgresTokenStore.Configuration(api: "tests")
        configuration.account = account
        configuration.lease = 3
        configuration.lockWaitTimeout = 10
        // Patient: in the first seconds of a parallel run on two busy cores a query waited more
        // than the default 5 s. Tests of an unavailable database set their own.
        configuration.queryTimeout = 30
        adjust(&configuration)
        return try PostgresTokenStore(client: client, key: key, configuration: configuration, logger: logger)
    }

    /// A new DemoServer realm with `settings`, its URL.
    static func realm(_ settings: [String: any Sendable] = [:]) async throws -> URL {
        let server = try await TestServer.get()
        let url = server.baseURL.appendingPathComponent("realm").appendingPathComponent("pg-\(UUID().uuidString.prefix(8))")
        if !settings.isEmpty { try await DTO.post(url.appendingPathComponent("control"), parameters: settings).run() }
        return url
    }

    /// The realm's counters.
    static func counters(_ realm: URL) async throws -> [String: Any] {
        let operation = try await DTO.get(realm.appendingPathComponent("control")).run()
        return (operation.json as? [String: Any]) ?? [:]
    }

    /// An expired token whose refresh token DemoServer accepts (once, in a rotation realm).
    static func expiredSeed() -> Token {
        Token(accessToken: "expired-\(UUID().uuidString)", refreshToken: "seed-\(UUID().uuidString)", expiresAt: Date(timeIntervalSinceNow: -60))
    }

    /// A scope on `realm` whose token lives in `store`, with a session of its own.
    static func scope(_ realm: URL, store: any TokenStore, refreshTimeout: Double = 20) -> (APIScope, AuthenticationCoordinator) {
        let scope = APIScope(
            name: "pg-\(UUID().uuidString.prefix(6))", configuration: APIScope.Configuration(baseURL: realm, session: NetworkSession()))
        var configuration = AuthenticationCoordinator.Configuration()
        configuration.refreshTimeout = refreshTimeout
        let coordinator = scope.configureAuthentication(
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: realm.appendingPathComponent("oauth/token")), store: store,
            configuration: configuration)
        return (scope, coordinator)
    }

    /// `count` calls at once to the realm's protected route through `scope`; the errors of those that failed.
    static func calls(_ count: Int, _ scope: APIScope, realm: URL, timeout: Double = 20) async -> [String] {
        await calls(count, scope, url: realm.appendingPathComponent("protected"), timeout: timeout)
    }

    /// `count` GETs of `url` at once through `scope`; the errors of those that failed.
    static func calls(_ count: Int, _ scope: APIScope, url: URL, timeout: Double = 20) async -> [String] {
        await withTaskGroup(of: String?.self) { group in
            for _ in 0..<count {
                group.addTask {
                    let operation = DataTaskOperation.get(url)
                    scope.adopt(operation)
                    // After `adopt`, which gives the operation the API's total timeout.
                    operation.totalTimeout = timeout
                    do {
                        try await operation.run()
                        return nil
                    } catch {
                        return String(describing: error)
                    }
                }
            }
            var errors: [String] = []
            for await error in group { if let error { errors.append(error) } }
            return errors
        }
    }
}
