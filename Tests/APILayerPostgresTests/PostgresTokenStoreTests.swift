import APILayer
import APILayerPostgres
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

/// `PostgresTokenStore` against a private PostgreSQL cluster: sealing, the migration, the lease
/// across two stores (two replicas' views of one row) and what goes wrong — the database down,
/// lost mid-refresh, a lease held too long, a wrong key, a tampered row, a refused refresh token.
@Suite("PostgresTokenStore", .requires(.postgresql), .processGate(.shared, minutes: 3))
struct PostgresTokenStoreTests {
    /// The row holds sealed bytes: neither token is readable in the table.
    @Test func tokensAreSealedAtRest() async throws {
        try await PostgresFixture.with { cluster, client in
            let account = "sealed-\(UUID())"
            let store = try Shared.store(client, account: account)
            let token = Token(
                accessToken: "access-\(UUID())", refreshToken: "refresh-\(UUID())", expiresAt: Date(timeIntervalSinceNow: 600), userID: "7")
            try await store.store(token)
            let raw = try cluster.psql(
                "SELECT encode(sealed, 'escape') || ' ' || encode(sealed, 'hex') FROM apilayer_tokens WHERE account = '\(account)'")
            #expect(!raw.isEmpty)
            #expect(!raw.contains(token.accessToken) && !raw.contains(token.refreshToken!))
            let read = try #require(try await Shared.store(client, account: account).fetch())
            #expect(read.accessToken == token.accessToken && read.refreshToken == token.refreshToken && read.userID == "7")
            // The expiry survives the round trip (not the 600 s it was set to ± the time a loaded
            // run took between the write and the read, psql included).
            #expect(abs(read.expiresAt!.timeIntervalSince(token.expiresAt!)) < 30)
        }
    }

    /// The expiry travels as seconds left on the database's clock: whatever a replica's clock
    /// says, the row's `expires_at - now()` decides.
    @Test func expiryIsReadOnTheDatabaseClock() async throws {
        try await PostgresFixture.with { cluster, client in
            let account = "clock-\(UUID())"
            let store = try Shared.store(client, account: account)
            try await store.store(Token(accessToken: "a", refreshToken: "r", expiresAt: Date(timeIntervalSinceNow: 5)))
            _ = try cluster.psql("UPDATE apilayer_tokens SET expires_at = now() + interval '100 seconds' WHERE account = '\(account)'")
            let read = try #require(try await store.fetch())
            let left = try #require(read.expiresAt).timeIntervalSinceNow
            #expect(left > 95 && left <= 100.5)
        }
    }

    /// A wrong key, a byte changed, a row moved to another account: none decrypts, and the
    /// error names the row, never its content.
    @Test func wrongKeyTamperedOrMovedRowsDoNotDecrypt() async throws {
        try await PostgresFixture.with { cluster, client in
            let account = "tamper-\(UUID())"
            let token = Token(accessToken: "secret-access-\(UUID())", refreshToken: "secret-refresh")
            try await Shared.store(client, account: account).store(token)

            let otherKey = try Shared.store(client, account: account, key: SymmetricKey(size: .bits256))
            let wrongKey = await #expect(throws: PostgresTokenStoreError.self) { try await otherKey.fetch() }
            #expect(wrongKey.map { "\($0)" }?.contains("does not decrypt") == true)
            #expect(wrongKey.map { "\($0)" }?.contains("secret") == false)

            // A rotated key: the previous one still opens the row.
            let rotated = try PostgresTokenStore(
                client: client, key: SymmetricKey(size: .bits256), previousKeys: [Shared.key],
                configuration: {
                    var configuration = PostgresTokenStore.Configuration(api: "tests")
                    configuration.queryTimeout = 30  // a loaded run's first queries took over 5 s
                    configuration.account = account
                    return configuration
                }())
            #expect(try await rotated.fetch()?.accessToken == token.accessToken)

            let moved = "moved-\(UUID())"
            _ = try cluster.psql("UPDATE apilayer_tokens SET account = '\(moved)' WHERE account = '\(account)'")
            await #expect(throws: PostgresTokenStoreError.self) { try await Shared.store(client, account: moved).fetch() }

            _ = try cluster.psql(
                "UPDATE apilayer_tokens SET account = '\(account)', sealed = set_byte(sealed, 20, get_byte(sealed, 20) # 1) WHERE account = '\(moved)'"
            )
            await #expect(throws: PostgresTokenStoreError.self) { try await Shared.store(client, account: account).fetch() }
        }
    }

    /// The migration runs only when asked: before it, a clear error names the table.
    @Test func migrationIsExplicit() async throws {
        try await PostgresFixture.with { _, client in
            var configuration = PostgresTokenStore.Configuration(api: "tests")
            configuration.queryTimeout = 30  // a loaded run's first queries took over 5 s
            configuration.table = "tokens_\(UUID().uuidString.prefix(8).lowercased())"
            let store = try PostgresTokenStore(client: client, key: Shared.key, configuration: configuration)
            await #expect(throws: PostgresTokenStoreError.tableMissing(table: configuration.table)) { try await store.fetch() }
            try await store.migrate()
            try await store.migrate()
            #expect(try await store.fetch() == nil)
            #expect(throws: PostgresTokenStoreError.self) { try PostgresTokenStore.migrationSQL(table: "x; DROP TABLE y") }
            configuration.table = "Bad-Name"
            #expect(throws: PostgresTokenStoreError.self) { try PostgresTokenStore(client: client, key: Shared.key, configuration: configuration) }
            #expect(throws: PostgresTokenStoreError.self) {
                try PostgresTokenStore(client: client, key: SymmetricKey(size: .bits128), configuration: .init(api: "tests"))
            }
        }
    }

    /// Two replicas (two stores and two scopes on one row), 60 calls each on an expired token,
    /// against a realm whose refresh tokens work once: one refresh, every call succeeds.
    @Test func twoReplicasRefreshOnce() async throws {
        let realm = try await Shared.realm(["rotation": true])
        try await PostgresFixture.with { _, client in
            let account = "two-\(UUID())"
            try await Shared.store(client, account: account).store(Shared.expiredSeed())
            let (first, _) = Shared.scope(realm, store: try Shared.store(client, account: account))
            let (second, _) = Shared.scope(realm, store: try Shared.store(client, account: account))
            async let a = Shared.calls(60, first, realm: realm)
            async let b = Shared.calls(60, second, realm: realm)
            let errors = await a + b
            #expect(errors.isEmpty, "\(errors.prefix(2))")
            let counters = try await Shared.counters(realm)
            #expect(counters["refreshes"] as? Int == 1)
            #expect(counters["reusedRefreshTokens"] as? Int == 0)
        }
    }

    /// The database down at start: calls fail before their deadline, with the store's reason
    /// (a call ended by its deadline would say so, and not name the database).
    @Test func databaseDownAtStart() async throws {
        let realm = try await Shared.realm()
        let closedPort = try unusedPort()
        let client = PostgresClient(configuration: PostgresFixture.configuration(port: closedPort))
        let runner = Task { await client.run() }
        defer { runner.cancel() }
        let store = try Shared.store(client, account: "down") { $0.queryTimeout = 1 }
        let (scope, _) = Shared.scope(realm, store: store)
        let errors = await Shared.calls(3, scope, realm: realm, timeout: 60)
        #expect(errors.count == 3)
        #expect(errors.allSatisfy { $0.contains("database is unavailable") && !$0.contains("deadline") }, "\(errors.first ?? "")")
    }

    /// A lease another replica holds longer than this one may wait: `lockWaitTimeout` ends the
    /// refresh with the holder's name; a call whose deadline comes first ends by its deadline.
    @Test func leaseHeldLongerThanTheWait() async throws {
        let realm = try await Shared.realm()
        try await PostgresFixture.with { cluster, client in
            let account = "held-\(UUID())"
            let store = try Shared.store(client, account: account) { $0.lockWaitTimeout = 1 }
            try await store.store(Shared.expiredSeed())
            _ = try cluster.psql(
                "UPDATE apilayer_tokens SET lease_holder = 'ghost:1', lease_id = gen_random_uuid(), lease_until = now() + interval '60 seconds' WHERE account = '\(account)'"
            )
            let authenticator = OAuthRefreshTokenAuthenticator(tokenURL: realm.appendingPathComponent("oauth/token"))
            let error = await #expect(throws: PostgresTokenStoreError.self) { try await store.refresh(current: nil, using: authenticator) }
            #expect(error == .lockWaitTimedOut(seconds: 1, holder: "ghost:1"))

            let (scope, _) = Shared.scope(realm, store: try Shared.store(client, account: account))
            let started = ContinuousClock.now
            let errors = await Shared.calls(2, scope, realm: realm, timeout: 1)
            #expect(errors.count == 2)
            // Well before the 60 s lease: the calls did not wait for it.
            #expect(ContinuousClock.now - started < .seconds(30), "\(errors)")
            #expect(errors.allSatisfy { $0.contains("deadline") || $0.contains("1.0 s") }, "\(errors)")
            #expect(try await Shared.counters(realm)["tokenRequests"] as? Int == 0)
        }
    }

    /// A holder that died: its lease runs out, and the next replica takes over with the stored
    /// refresh token — one refresh.
    @Test func takeoverWhenTheLeaseRunsOut() async throws {
        let realm = try await Shared.realm(["rotation": true])
        try await PostgresFixture.with { cluster, client in
            let account = "takeover-\(UUID())"
            let store = try Shared.store(client, account: account)
            try await store.store(Shared.expiredSeed())
            _ = try cluster.psql(
                "UPDATE apilayer_tokens SET lease_holder = 'dead:1', lease_id = gen_random_uuid(), lease_until = now() + interval '1.5 seconds' WHERE account = '\(account)'"
            )
            let started = ContinuousClock.now
            let authenticator = OAuthRefreshTokenAuthenticator(tokenURL: realm.appendingPathComponent("oauth/token"))
            let token = try await store.refresh(current: nil, using: authenticator)
            #expect(token.accessToken.hasPrefix("at-"))
            #expect(ContinuousClock.now - started >= .seconds(1.2))
            #expect(try await Shared.counters(realm)["refreshes"] as? Int == 1)
        }
    }

    /// The token endpoint refused the stored refresh token: the refusal is remembered, and no
    /// replica presents that refresh token again (a rotation server would revoke the grant).
    @Test func aRefusedRefreshTokenIsNeverPresentedTwice() async throws {
        let realm = try await Shared.realm(["rotation": true])
        try await PostgresFixture.with { _, client in
            let account = "refused-\(UUID())"
            try await Shared.store(client, account: account).store(Token(accessToken: "old", refreshToken: "rt-unknown", expiresAt: .distantPast))
            let authenticator = OAuthRefreshTokenAuthenticator(tokenURL: realm.appendingPathComponent("oauth/token"))
            await #expect(throws: AuthenticationError.tokenEndpoint(status: 400, error: "invalid_grant")) {
                try await Shared.store(client, account: account).refresh(current: nil, using: authenticator)
            }
            try await Task.sleep(for: .milliseconds(300))  // the lease is ended in the background
            let second = await #expect(throws: PostgresTokenStoreError.self) {
                try await Shared.store(client, account: account).refresh(current: nil, using: authenticator)
            }
            #expect(second.map { "\($0)" }?.contains("a new login is needed") == true)
            #expect(try await Shared.counters(realm)["tokenRequests"] as? Int == 1)
            // A login writes a new token, and the refusal is forgotten.
            try await Shared.store(client, account: account).store(Shared.expiredSeed())
            _ = try await Shared.store(client, account: account).refresh(current: nil, using: authenticator)
        }
    }

    /// The database lost after the token endpoint answered: this replica keeps its fresh token
    /// and writes it once the database is back, so the next replica picks it up instead of
    /// presenting the spent refresh token.
    @Test func databaseLostMidRefresh() async throws {
        let realm = try await Shared.realm(["rotation": true, "delay": 1.0])
        try await PostgresFixture.withOwnCluster { cluster, client in
            let account = "lost-\(UUID())"
            // The seed goes in with the tests' patient timeout: on a loaded machine it took seconds.
            try await Shared.store(client, account: account).store(Shared.expiredSeed())
            let store = try Shared.store(client, account: account) {
                $0.queryTimeout = 3
                $0.lease = 10
            }
            let oauth = OAuthRefreshTokenAuthenticator(tokenURL: realm.appendingPathComponent("oauth/token"))
            let asked = Locked(false)
            let authenticator = ClosureAuthenticator { current in
                asked.withLock { $0 = true }
                return try await oauth.refresh(current: current)
            }
            async let refreshed = store.refresh(current: nil, using: authenticator)
            // Down once the lease is taken and the token endpoint asked (it answers after a
            // second): the new token arrives with no database to write it to.
            #expect(await eventually(within: 30) { asked.withLock { $0 } })
            try cluster.halt()
            let fresh = try await refreshed
            try cluster.resume()
            var picked: Token?
            for _ in 0..<60 where picked?.accessToken != fresh.accessToken {
                try await Task.sleep(for: .milliseconds(250))
                picked = try? await Shared.store(client, account: account).fetch()
            }
            #expect(picked?.accessToken == fresh.accessToken)
            let counters = try await Shared.counters(realm)
            #expect(counters["refreshes"] as? Int == 1)
            #expect(counters["reusedRefreshTokens"] as? Int == 0)
        }
    }

    /// No token reaches a log, at trace level, through a whole refresh.
    @Test func noTokenIsLogged() async throws {
        let realm = try await Shared.realm(["rotation": true])
        let capture = LogCapture()
        try await PostgresFixture.with { _, client in
            let account = "logs-\(UUID())"
            let seed = Shared.expiredSeed()
            // A lease of 10 s: this test reads logs, and a loaded run's refresh outlived 3 s.
            let store = try Shared.store(client, account: account, logger: capture.logger(label: "store")) { $0.lease = 10 }
            try await store.store(seed)
            let authenticator = OAuthRefreshTokenAuthenticator(tokenURL: realm.appendingPathComponent("oauth/token"))
            let fresh = try await store.refresh(current: nil, using: authenticator)
            #expect(!capture.text.isEmpty)
            for secret in [seed.accessToken, seed.refreshToken!, fresh.accessToken, fresh.refreshToken!] {
                #expect(!capture.text.contains(secret))
            }
        }
    }

    /// A login saved through the coordinator (`updateToken`, written in the background) reaches
    /// the database before `APIService` reports the service stopped.
    @Test func aLoginLandsBeforeTheServiceStops() async throws {
        let realm = try await Shared.realm()
        try await PostgresFixture.with { _, client in
            let account = "login-\(UUID())"
            let (scope, coordinator) = Shared.scope(realm, store: try Shared.store(client, account: account))
            let login = Token(accessToken: "login-\(UUID())", refreshToken: "seed-\(UUID())")
            try coordinator.updateToken(login)
            // The stop waits for the write at most its cancel grace: 30 s, not the default 5 (a
            // loaded run's write took longer).
            await APIService(scopes: [scope], configuration: .init(cancelGrace: .seconds(30))).stop()
            #expect(try await Shared.store(client, account: account).fetch()?.accessToken == login.accessToken)
        }
    }
}
