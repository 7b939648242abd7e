import APILayer
import APILayerPostgres
import Configuration
import Crypto
import Foundation
import LocalPostgres
import Logging
import NetOps
import NetOpsHTTP
import PostgresNIO
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The shared store against replicas that race and servers that misbehave: a logout or a login on
/// one replica is not undone by another's refresh; what a token endpoint says is stored redacted
/// and bounded; an absurd `expires_in` is written, not retried for ten minutes; the table is the
/// one named whatever `search_path` says; a stop waits for the database a bounded time.
@Suite("Security: PostgreSQL token store", .requires(.postgresql), .processGate(.shared, minutes: 3))
struct PostgresStoreSecurityTests {
    /// A token endpoint and a protected route of the test's own: the endpoint answers what
    /// `tokenReply` says (after `tokenDelay` seconds), the route answers 401 to `refused` tokens
    /// and echoes any other `Authorization` it gets.
    final class Upstream: Sendable {
        let server: ScriptedHTTPServer
        let refused: Locked<Set<String>>

        init(tokenReply: String = #"{"access_token":"fresh-1","refresh_token":"rt-fresh","expires_in":3600}"#, tokenDelay: Double = 0)
            async throws
        {
            let refused = Locked<Set<String>>([])
            self.refused = refused
            server = try await ScriptedHTTPServer.start { request in
                switch request.path {
                case "/oauth/token":
                    let status = tokenReply.contains("access_token") ? 200 : 400
                    return .json(tokenReply, status: status, delay: tokenDelay)
                default:
                    let authorization = request.value(of: "Authorization") ?? ""
                    let token = String(authorization.dropFirst("Bearer ".count))
                    if token.isEmpty || refused.withLock({ $0.contains(token) }) { return .status(401) }
                    return .text(authorization)
                }
            }
        }

        var tokenURL: URL { server.url("/oauth/token") }
        var tokenRequests: [ScriptedHTTPServer.Request] { server.requests(to: "/oauth/token") }

        /// A replica: a scope whose token lives in `store`, refreshed at this token endpoint.
        func replica(_ store: PostgresTokenStore) -> (APIScope, AuthenticationCoordinator) {
            let scope = APIScope(
                name: "pg-sec-\(UUID().uuidString.prefix(6))",
                configuration: APIScope.Configuration(baseURL: server.url("/"), session: NetworkSession()))
            var configuration = AuthenticationCoordinator.Configuration()
            configuration.refreshTimeout = 20
            let coordinator = scope.configureAuthentication(
                authenticator: OAuthRefreshTokenAuthenticator(tokenURL: tokenURL), store: store, configuration: configuration)
            return (scope, coordinator)
        }

        /// A GET of `path` through `scope`: what the route echoed, or the error.
        func call(_ path: String, through scope: APIScope) async -> Result<String, NetOpsError> {
            let operation = DataTaskOperation.get(server.url(path))
            scope.adopt(operation)
            operation.totalTimeout = 20
            do {
                try await operation.run()
                return .success(String(decoding: operation.receivedData, as: UTF8.self))
            } catch {
                return .failure(operation.error ?? NetOpsError(.cancelled, url: nil))
            }
        }
    }

    /// Two replicas hold token T. A logout through the first (`removeToken()`, flushed). The
    /// second meets a 401: it must not present its own copy of T's refresh token — the row is a
    /// tombstone — so its call fails, the row stays empty, the token endpoint hears nothing, and
    /// the second replica forgets T too.
    @Test func aLogoutOnOneReplicaIsNotUndoneByAnothersRefresh() async throws {
        let upstream = try await Upstream()
        defer { Task { await upstream.server.stop() } }
        try await PostgresFixture.with { cluster, client in
            let account = "logout-\(UUID())"
            let login = Token(accessToken: "T-\(UUID())", refreshToken: "RT-\(UUID())", expiresAt: Date(timeIntervalSinceNow: 3600))
            let first = try Shared.store(client, account: account)
            let second = try Shared.store(client, account: account)
            try await first.store(login)
            _ = try await second.fetch()
            let (scopeA, coordinatorA) = upstream.replica(first)
            let (scopeB, coordinatorB) = upstream.replica(second)
            #expect(try await upstream.call("/protected", through: scopeA).get() == "Bearer \(login.accessToken)")
            #expect(try await upstream.call("/protected", through: scopeB).get() == "Bearer \(login.accessToken)")

            try coordinatorA.removeToken()
            await coordinatorA.flushStore()
            upstream.refused.withLock { $0.insert(login.accessToken) }
            let afterLogout = await upstream.call("/protected", through: scopeB)
            guard case .failure = afterLogout else {
                Issue.record("the second replica's call succeeded after the logout: \(afterLogout)")
                return
            }
            #expect(upstream.tokenRequests.isEmpty, "the refresh token was presented: \(upstream.tokenRequests.map(\.bodyText))")
            let row = try cluster.psql("SELECT coalesce(length(sealed), 0) FROM apilayer_tokens WHERE account = '\(account)'")
            #expect(row == "0", "the row holds a token again")
            #expect(coordinatorB.token == nil, "the second replica kept the removed token")
        }
    }

    /// A login through the first replica while the second's refresh is at the token endpoint:
    /// the second's call is replayed with the login's token, not with the token its refresh
    /// brought for the previous account.
    @Test func aLoginDuringAnotherReplicasRefreshWins() async throws {
        let upstream = try await Upstream(tokenDelay: 1.5)
        defer { Task { await upstream.server.stop() } }
        try await PostgresFixture.with { _, client in
            let account = "login-race-\(UUID())"
            let old = Token(accessToken: "T-\(UUID())", refreshToken: "RT-\(UUID())", expiresAt: Date(timeIntervalSinceNow: 3600))
            let first = try Shared.store(client, account: account)
            let second = try Shared.store(client, account: account)
            try await first.store(old)
            _ = try await second.fetch()
            let (_, coordinatorA) = upstream.replica(first)
            let (scopeB, coordinatorB) = upstream.replica(second)
            upstream.refused.withLock { $0.insert(old.accessToken) }

            async let replayed = upstream.call("/protected", through: scopeB)
            #expect(await eventually(within: 10) { upstream.tokenRequests.count == 1 })
            let other = Token(accessToken: "U2-\(UUID())", refreshToken: "RU2-\(UUID())", expiresAt: Date(timeIntervalSinceNow: 3600))
            try coordinatorA.updateToken(other)
            await coordinatorA.flushStore()
            let answer = await replayed
            #expect((try? answer.get()) == "Bearer \(other.accessToken)", "the replayed call carried \(answer)")
            #expect(coordinatorB.token?.accessToken == other.accessToken)
            #expect(try await Shared.store(client, account: account).fetch()?.accessToken == other.accessToken)
        }
    }

    /// A token endpoint's refusal with a long `error` holding a credential: the failure other
    /// replicas read from the row is redacted and at most 1 KiB.
    @Test func aStoredFailureIsRedactedAndBounded() async throws {
        let secret = "rt-SECRET-\(UUID())"
        let long = String(repeating: "x", count: 200_000)
        let upstream = try await Upstream(tokenReply: #"{"error":"invalid_grant refresh_token=\#(secret) \#(long)"}"#)
        defer { Task { await upstream.server.stop() } }
        try await PostgresFixture.with { cluster, client in
            let account = "failure-\(UUID())"
            let store = try Shared.store(client, account: account)
            try await store.store(Token(accessToken: "a", refreshToken: "r", expiresAt: Date(timeIntervalSinceNow: -60)))
            await #expect(throws: (any Error).self) {
                try await store.refresh(current: nil, using: OAuthRefreshTokenAuthenticator(tokenURL: upstream.tokenURL))
            }
            var failure = ""
            for _ in 0..<40 where failure.isEmpty {
                failure = try cluster.psql("SELECT coalesce(failure, '') FROM apilayer_tokens WHERE account = '\(account)'")
                if failure.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(!failure.isEmpty)
            #expect(!failure.contains(secret), "the stored failure holds the credential")
            #expect(failure.utf8.count <= 1024, "the stored failure holds \(failure.utf8.count) bytes")
        }
    }

    /// `expires_in: 1e20`: the fresh token is written at once (its lifetime clamped to a year),
    /// not retried every quarter second for ten minutes while the other replicas present the
    /// spent refresh token.
    @Test func anAbsurdLifetimeIsClampedAndWritten() async throws {
        let upstream = try await Upstream(tokenReply: #"{"access_token":"long-lived","refresh_token":"rt-2","expires_in":1e20}"#)
        defer { Task { await upstream.server.stop() } }
        try await PostgresFixture.with { cluster, client in
            let account = "lifetime-\(UUID())"
            let store = try Shared.store(client, account: account)
            try await store.store(Token(accessToken: "a", refreshToken: "r", expiresAt: Date(timeIntervalSinceNow: -60)))
            let fresh = try await store.refresh(current: nil, using: OAuthRefreshTokenAuthenticator(tokenURL: upstream.tokenURL))
            #expect(fresh.accessToken == "long-lived")
            let stored = try await Shared.store(client, account: account).fetch()
            #expect(stored?.accessToken == "long-lived", "the fresh token was not written")
            let days = try cluster.psql(
                "SELECT coalesce(floor(extract(epoch FROM expires_at - now()) / 86400)::int, -1) FROM apilayer_tokens WHERE account = '\(account)'")
            #expect(Int(days).map { $0 >= 364 && $0 <= 366 } == true, "expires in \(days) days")
        }
    }

    /// A schema named after the database user, made by someone else, earlier on `search_path`
    /// than `public`: the store still uses `public.apilayer_tokens`, the table `migrate()` made,
    /// and a schema-qualified name is accepted.
    @Test func theTableIsNotResolvedThroughTheSearchPath() async throws {
        try await PostgresFixture.withOwnCluster { cluster, client in
            _ = try cluster.psql(
                "CREATE SCHEMA apilayer; CREATE TABLE apilayer.apilayer_tokens (LIKE public.apilayer_tokens INCLUDING ALL)")
            let account = "path-\(UUID())"
            try await Shared.store(client, account: account).store(Token(accessToken: "a-1", refreshToken: "r-1"))
            #expect(try cluster.psql("SELECT count(*) FROM apilayer.apilayer_tokens") == "0", "the shadow table got the token")
            #expect(try cluster.psql("SELECT count(*) FROM public.apilayer_tokens WHERE account = '\(account)'") == "1")

            let qualified = try Shared.store(client, account: account) { $0.table = "apilayer.apilayer_tokens" }
            try await qualified.store(Token(accessToken: "a-2", refreshToken: "r-2"))
            #expect(try cluster.psql("SELECT count(*) FROM apilayer.apilayer_tokens") == "1")
            #expect(throws: PostgresTokenStoreError.self) { try PostgresTokenStore.migrationSQL(table: "a.b.c") }
        }
    }

    /// The sealing key's file is refused when others may read it, or when it is larger than a
    /// key file can be, naming the key, never the content.
    @Test func aKeyFileOthersMayReadIsRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-key-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = folder.appendingPathComponent("key")
        let text = Shared.keyBytes.base64EncodedString()
        try Data(text.utf8).write(to: key)
        func read() throws -> SymmetricKey {
            try PostgresTokenStore.key(
                configReader: ConfigReader(provider: InMemoryProvider(values: ["store.keyFile": ConfigValue(.string(key.path), isSecret: false)]))
                    .scoped(to: "store"))
        }
        chmod(key.path, 0o644)
        let open = #expect(throws: ConfigurationError.self) { try read() }
        #expect(open?.key == "store.keyFile")
        #expect(open.map { "\($0)" }?.contains("mode") == true, "\(String(describing: open))")
        #expect(open.map { "\($0)" }?.contains(text) == false)
        chmod(key.path, 0o600)
        _ = try read()
        try Data(repeating: 0x41, count: 2 << 20).write(to: key)
        chmod(key.path, 0o600)
        let large = #expect(throws: ConfigurationError.self) { try read() }
        #expect(large.map { "\($0)" }?.contains("bytes") == true, "\(String(describing: large))")
    }

    /// The database gone, four logins queued for it (60 s statements): `APIService.stop()` waits
    /// for the store's writes at most `cancelGrace` (1 s), not the minutes of the writes' own
    /// timeouts.
    @Test func aStopWaitsForAGoneDatabaseABoundedTime() async throws {
        let upstream = try await Upstream()
        defer { Task { await upstream.server.stop() } }
        try await PostgresFixture.withOwnCluster { cluster, client in
            let account = "stop-\(UUID())"
            let store = try Shared.store(client, account: account) { $0.queryTimeout = 60 }
            let (scope, coordinator) = upstream.replica(store)
            try cluster.halt()
            for number in 0..<4 { try coordinator.updateToken(Token(accessToken: "login-\(number)", refreshToken: "r")) }
            let service = APIService(scopes: [scope], configuration: .init(drainTimeout: .milliseconds(100), cancelGrace: .seconds(1)))
            let started = ContinuousClock.now
            await service.stop()
            let took = ContinuousClock.now - started
            // Each write gives up after its 60 s query timeout: under 30 s the stop waited for
            // none of them (it waits for the drain, the cancel grace and the store's flush, each
            // bounded: 1 s on a quiet machine, 4–11 s measured under a load of 8 on two cores).
            #expect(took < .seconds(30), "stop() took \(took)")
        }
    }
}
