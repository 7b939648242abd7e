import APILayer
import Crypto
import Foundation
import Logging
import NetOps
import NetOpsHTTP
import PostgresNIO

/// A token store in PostgreSQL that every replica of a service shares, and through which one
/// replica refreshes for all of them.
///
/// One row per API and account holds the token, sealed with AES-GCM under a key the service
/// provides (never stored in clear, never logged), its expiry on the database's clock, and the
/// refresh *lease*. Given to `APIScope.configureAuthentication(authenticator:store:)`, it takes
/// over the scope's refreshes (`SharedTokenStore`): a replica whose token failed takes the lease,
/// calls the authenticator with the stored refresh token and writes the new token; the others
/// wait for the lease to end and pick the new token up. A replica that dies holding the lease
/// loses it when the lease runs out, and another takes over. Docs/authentication.md ("Several
/// replicas") has the protocol and its failure cases.
///
/// ```swift
/// let store = try PostgresTokenStore(client: postgres, key: key, configuration: .init(api: "billing"))
/// try await store.migrate()                    // once, when the service is deployed
/// APIScope.billing.configureAuthentication(authenticator: OAuthRefreshTokenAuthenticator(tokenURL: url), store: store)
/// ```
///
/// The service runs `client` (`PostgresClient.run()`, in its `ServiceGroup`). The synchronous
/// `TokenStore` methods work on this process's copy: `load()` returns the token last read or
/// written, `save(_:)` and `remove()` write in the background, in order (`flush()` waits);
/// `fetch()`, `store(_:)` and `delete()` are their awaited forms.
public final class PostgresTokenStore: SharedTokenStore, Sendable {
    /// Where the token lives and how the refresh lease behaves.
    public struct Configuration: Sendable {
        /// The table: a lower-case SQL identifier, `apilayer_tokens` by default, in schema
        /// `public` unless written `schema.table`. The name is never looked up through the
        /// connection's `search_path`, where a schema named after the database user (which
        /// another role may have created) would come first.
        public var table = "apilayer_tokens"
        /// The API the token is for (one row per API and account).
        public var api: String
        /// The account the token is for.
        public var account = "default"
        /// Seconds a replica may hold the refresh lease (15 by default): its refresh is abandoned
        /// when they pass, and another replica may take over a lease whose holder died after as
        /// long. Longer than the token endpoint's slowest answer; at least 1.
        public var lease: Double = 15
        /// The most seconds a replica waits for another's refresh before failing (30 by
        /// default): more than `lease`, so that a holder's death is waited out.
        public var lockWaitTimeout: Double = 30
        /// The first pause between two reads of the row while another replica refreshes (50 ms),
        /// doubled up to a quarter of a second.
        public var pollInterval: Double = 0.05
        /// The most seconds one statement may take (5 by default): a database that does not
        /// answer fails the refresh instead of holding it.
        public var queryTimeout: Double = 5
        /// A stored token within this many seconds of its expiry is not picked up (5, as the
        /// coordinator's `expiryLeeway`).
        public var expiryLeeway: Double = 5
        /// Who this replica is, as the lease names it: `host:pid` by default.
        public var holder = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)"

        /// The token of `api`, account `default`, in table `apilayer_tokens`.
        public init(api: String) {
            self.api = api
        }
    }

    /// The configuration.
    public let configuration: Configuration
    let table: TokenTable
    let sealer: TokenSealer
    let logger: Logger
    /// This process's copy of the token and the version it was read at or written as.
    let local = Locked<Local>(Local())
    /// The last background write, which the next one waits for.
    private let lastWrite = Locked<Task<Void, Never>?>(nil)

    struct Local {
        var token: Token?
        var version: Int64?
    }

    /// A store of `configuration.api`'s token in `client`'s database, sealed with `key`.
    ///
    /// - Parameters:
    ///   - client: the service's PostgreSQL client, which it runs.
    ///   - key: a 256-bit key; every replica is given the same one.
    ///   - previousKeys: keys that sealed earlier rows, tried when `key` does not open one (a
    ///     key rotation); rows are rewritten with `key` at the next refresh.
    ///   - configuration: the row and the lease.
    ///   - logger: where the lease's steps go (never a token).
    /// - Throws: `PostgresTokenStoreError.invalidConfiguration`.
    public init(
        client: PostgresClient, key: SymmetricKey, previousKeys: [SymmetricKey] = [], configuration: Configuration,
        logger: Logger = Logger(label: "APILayer.PostgresTokenStore")
    ) throws {
        guard TokenTable.isValidTableName(configuration.table) else {
            throw PostgresTokenStoreError.invalidConfiguration(
                "table name \(configuration.table) is not a lower-case SQL identifier, or two of them (schema.table)")
        }
        guard ([key] + previousKeys).allSatisfy(TokenSealer.isValid) else {
            throw PostgresTokenStoreError.invalidConfiguration("the key must be 256 bits (32 bytes)")
        }
        guard configuration.lease >= 1, configuration.lockWaitTimeout > 0, configuration.pollInterval > 0,
            configuration.queryTimeout > 0, !configuration.api.isEmpty
        else {
            throw PostgresTokenStoreError.invalidConfiguration(
                "api must not be empty, lease at least 1 s, lockWaitTimeout, pollInterval and queryTimeout positive")
        }
        self.configuration = configuration
        self.logger = logger
        sealer = TokenSealer(key: key, previousKeys: previousKeys)
        table = TokenTable(
            client: client, key: TokenRow.Key(table: configuration.table, api: configuration.api, account: configuration.account),
            queryTimeout: configuration.queryTimeout, logger: logger)
    }

    /// The SQL that creates the token table (in schema `public` unless `table` names one): what
    /// `migrate()` runs, for services that apply their migrations themselves.
    public static func migrationSQL(table: String = "apilayer_tokens") throws -> String {
        guard TokenTable.isValidTableName(table) else {
            throw PostgresTokenStoreError.invalidConfiguration(
                "table name \(table) is not a lower-case SQL identifier, or two of them (schema.table)")
        }
        return TokenTable.migrationSQL(table: table)
    }

    /// Creates the token table if it does not exist. Never run implicitly: call it once, when
    /// the service is deployed or starts.
    public func migrate() async throws {
        try await table.migrate()
    }

    // MARK: Awaited

    /// Reads the stored token (nil when there is none) and keeps it as this process's copy.
    ///
    /// - Throws: `PostgresTokenStoreError` (the database, a row that does not decrypt).
    public func fetch() async throws -> Token? {
        let row = try await table.read()
        let token = try row.flatMap(open)
        local.withLock { $0 = Local(token: token, version: row?.version) }
        return token
    }

    /// Stores `token` for every replica (a login's), replacing what is there.
    public func store(_ token: Token) async throws {
        try await write(token)
    }

    /// Removes the stored token for every replica (a logout's).
    public func delete() async throws {
        try await write(nil)
    }

    /// Waits for the writes `save(_:)` and `remove()` started.
    public func flush() async {
        await lastWrite.withLock { $0 }?.value
    }

    /// Writes `token` (nil: removes it) over the current version, again when another write
    /// came first.
    private func write(_ token: Token?) async throws {
        for _ in 0..<16 {
            let row = try await table.read()
            let version = row?.version
            let next = (version ?? 0) + 1
            let sealed = try token.map { try sealer.seal($0, row: table.key, version: next) }
            if try await table.write(sealed: sealed, expiresIn: token.flatMap(secondsLeft), over: version) {
                local.withLock { $0 = Local(token: token, version: next) }
                return
            }
        }
        throw PostgresTokenStoreError.database("the row kept changing while it was written")
    }

    // MARK: TokenStore

    /// This process's copy: the token last read, refreshed or written here (nil before the
    /// first). The coordinator's first refresh reads the stored token.
    public func load() throws -> Token? {
        local.withLock { $0.token }
    }

    /// Keeps `token` as this process's copy and writes it for every replica in the background
    /// (a token this store has just written itself is not written again).
    public func save(_ token: Token) throws {
        let changed = local.withLock { local -> Bool in
            guard local.token != token else { return false }
            local.token = token
            return true
        }
        if changed { enqueue { try await $0.write(token) } }
    }

    /// Forgets this process's copy and removes the stored token in the background.
    public func remove() throws {
        local.withLock { $0.token = nil }
        enqueue { try await $0.write(nil) }
    }

    /// The table, API and account.
    public var storeIdentity: String? { "postgres:\(configuration.table)/\(configuration.api)/\(configuration.account)" }

    /// Runs `work` after the writes started before it.
    private func enqueue(_ work: @escaping @Sendable (PostgresTokenStore) async throws -> Void) {
        lastWrite.withLock { last in
            let previous = last
            last = Task { [self] in
                await previous?.value
                do { try await work(self) } catch { logger.error("the token could not be written: \(error)") }
            }
        }
    }

    // MARK: Rows

    /// The token sealed in `row`, nil when the row holds none.
    func open(_ row: TokenRow) throws -> Token? {
        guard let sealed = row.sealed else { return nil }
        let expiresAt = row.expiresIn.map { Date(timeIntervalSinceNow: $0) }
        return try sealer.open(sealed, row: table.key, version: row.version, expiresAt: expiresAt)
    }

    /// Seconds until `token` expires by this process's clock, which the database adds to its
    /// own `now()`; at most `Token.maximumLifetime`, so that the interval always fits the column
    /// (an absurd expiry from an authenticator of the service's own would fail every write).
    func secondsLeft(_ token: Token) -> Double? {
        token.expiresAt.map { min($0.timeIntervalSinceNow, Token.maximumLifetime) }.map { $0.isFinite ? $0 : Token.maximumLifetime }
    }
}
