import APILayer
import APILayerPostgres
import Configuration
import Crypto
import Foundation
import LocalPostgres
import Logging
import NetOps
import PostgresNIO
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The shared store against replicas that race: a logout or a login on one replica is not undone
/// by another's refresh; its sealing key is not read from a file others may read.
@Suite("Security: PostgreSQL token store", .enabled(if: postgresIsAvailable), .timeLimit(.minutes(3)), .processGate(.shared))
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
}
