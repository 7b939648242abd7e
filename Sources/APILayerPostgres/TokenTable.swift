import Foundation
import Logging
import NetOps
import PostgresNIO

/// One row of the token table as read, with times turned into seconds from the database's
/// `now()`, so that no replica's clock takes part.
struct TokenRow: Sendable {
    /// Which row: the table, the API and the account.
    struct Key: Sendable, Hashable {
        let table: String
        let api: String
        let account: String
    }

    /// Grows by one with every token written.
    var version: Int64
    /// The sealed token; nil when the row holds none (removed, or only a lease so far).
    var sealed: Data?
    /// Seconds until the token expires, by the database's clock; nil when unknown.
    var expiresIn: Double?
    /// Whether a replica holds the refresh lease now.
    var leaseActive: Bool
    /// Who holds or last held the lease (`host:pid`).
    var leaseHolder: String?
    /// Refreshes that failed so far: a waiter that sees it grow knows the refresh it waited for failed.
    var failures: Int64
    /// Why the last refresh failed.
    var failure: String?
    /// The SHA-256 of a refresh token the token endpoint refused, never to be presented again.
    var refusedDigest: Data?

    /// A row a logout emptied: written at least once (a row made by a first lease is at version
    /// 0), and holding no token.
    var isTombstone: Bool { version >= 1 && sealed == nil }
}

/// The SQL of the token table: every statement the store runs, each bounded by `queryTimeout`
/// and with its errors turned into `PostgresTokenStoreError`.
struct TokenTable: Sendable {
    let client: PostgresClient
    let key: TokenRow.Key
    let queryTimeout: Double
    let logger: Logger

    /// `CREATE TABLE IF NOT EXISTS` for the token table named `table` (checked before).
    static func migrationSQL(table: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(qualified(table)) (
            api text NOT NULL,
            account text NOT NULL,
            version bigint NOT NULL,
            sealed bytea,
            expires_at timestamptz,
            lease_id uuid,
            lease_holder text,
            lease_until timestamptz,
            failures bigint NOT NULL DEFAULT 0,
            failure text,
            refused_digest bytea,
            updated_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (api, account)
        )
        """
    }

    /// Whether `name` can name the table without quoting: a lower-case SQL identifier, or two
    /// joined by a dot (`schema.table`).
    static func isValidTableName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return false }
        let lower = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz_")
        let rest = lower.union(CharacterSet(charactersIn: "0123456789"))
        return parts.allSatisfy { part in
            guard let first = part.unicodeScalars.first, part.unicodeScalars.count <= 63 else { return false }
            return lower.contains(first) && part.unicodeScalars.allSatisfy { rest.contains($0) }
        }
    }

    /// `table` with its schema: `public` when it names none. Never resolved through
    /// `search_path`, where a schema named after the user, made by another role, comes first.
    static func qualified(_ table: String) -> String {
        table.contains(".") ? table : "public." + table
    }

    /// The table as the statements name it.
    var sqlName: String { Self.qualified(key.table) }

    func migrate() async throws {
        _ = try await run("migrate") { client in
            try await client.query(PostgresQuery(unsafeSQL: Self.migrationSQL(table: key.table)), logger: logger)
        }
    }

    /// The row, nil when there is none.
    func read() async throws -> TokenRow? {
        let query: PostgresQuery = """
            SELECT version, sealed, EXTRACT(EPOCH FROM expires_at - now())::float8,
                   COALESCE(lease_until > now(), false), lease_holder, failures, failure, refused_digest
            FROM \(unescaped: sqlName) WHERE api = \(key.api) AND account = \(key.account)
            """
        return try await run("read") { client in
            let rows = try await client.query(query, logger: logger)
            for try await (version, sealed, expiresIn, leaseActive, holder, failures, failure, refused) in rows.decode(
                (Int64, Data?, Double?, Bool, String?, Int64, String?, Data?).self)
            {
                return TokenRow(
                    version: version, sealed: sealed, expiresIn: expiresIn, leaseActive: leaseActive, leaseHolder: holder,
                    failures: failures, failure: failure, refusedDigest: refused)
            }
            return nil
        }
    }

    /// Takes the lease on the row at `version` when no lease is active (or makes the row with
    /// the lease when there is none); false when another replica was first.
    func takeLease(id: UUID, holder: String, seconds: Double, version: Int64?) async throws -> Bool {
        let query: PostgresQuery
        if let version {
            query = """
                UPDATE \(unescaped: sqlName)
                SET lease_id = \(id), lease_holder = \(holder), lease_until = now() + make_interval(secs => \(seconds))
                WHERE api = \(key.api) AND account = \(key.account) AND version = \(version)
                  AND (lease_until IS NULL OR lease_until <= now())
                RETURNING 1
                """
        } else {
            query = """
                INSERT INTO \(unescaped: sqlName) (api, account, version, lease_id, lease_holder, lease_until)
                VALUES (\(key.api), \(key.account), 0, \(id), \(holder), now() + make_interval(secs => \(seconds)))
                ON CONFLICT DO NOTHING
                RETURNING 1
                """
        }
        return try await changedOneRow("take the lease", query)
    }

    /// Writes the refreshed token and ends the lease `id`, if the lease is still this one's and
    /// the row still at `version`; false otherwise (the lease was lost, or a login wrote meanwhile).
    func finishLease(id: UUID, version: Int64, sealed: Data, expiresIn: Double?) async throws -> Bool {
        let query: PostgresQuery = try """
        UPDATE \(unescaped: sqlName)
        SET version = \(version + 1), sealed = \(sealed), expires_at = now() + make_interval(secs => \(expiresIn)),
            lease_id = NULL, lease_until = NULL, failure = NULL, refused_digest = NULL, updated_at = now()
        WHERE api = \(key.api) AND account = \(key.account) AND version = \(version) AND lease_id = \(id)
        RETURNING 1
        """
        return try await changedOneRow("store the refreshed token", query)
    }

    /// Writes a refreshed token whose lease was lost to the database's absence, if the row is
    /// still at `version` (nobody wrote since); false otherwise.
    func writeLate(version: Int64, sealed: Data, expiresIn: Double?) async throws -> Bool {
        let query: PostgresQuery = try """
        UPDATE \(unescaped: sqlName)
        SET version = \(version + 1), sealed = \(sealed), expires_at = now() + make_interval(secs => \(expiresIn)),
            lease_id = NULL, lease_until = NULL, failure = NULL, refused_digest = NULL, updated_at = now()
        WHERE api = \(key.api) AND account = \(key.account) AND version = \(version)
        RETURNING 1
        """
        return try await changedOneRow("store the refreshed token late", query)
    }

    /// Ends the lease `id` after a failed refresh: counts the failure, says why, and remembers
    /// the refused refresh token's digest when the token endpoint refused it.
    func failLease(id: UUID, reason: String, refusedDigest: Data?) async throws {
        let query: PostgresQuery = try """
        UPDATE \(unescaped: sqlName)
        SET lease_id = NULL, lease_until = NULL, failures = failures + 1, failure = \(Self.storedFailure(reason)),
            refused_digest = COALESCE(\(refusedDigest), refused_digest), updated_at = now()
        WHERE api = \(key.api) AND account = \(key.account) AND lease_id = \(id)
        """
        _ = try await changedOneRow("end the lease", query)
    }

    /// Writes `sealed` (nil: removes the token) as version `version + 1` if the row is at
    /// `version`, or makes the row when `version` is nil; false when the row changed meanwhile.
    func write(sealed: Data?, expiresIn: Double?, over version: Int64?) async throws -> Bool {
        let query: PostgresQuery
        if let version {
            query = try """
            UPDATE \(unescaped: sqlName)
            SET version = \(version + 1), sealed = \(sealed), expires_at = now() + make_interval(secs => \(expiresIn)),
                failure = NULL, refused_digest = NULL, updated_at = now()
            WHERE api = \(key.api) AND account = \(key.account) AND version = \(version)
            RETURNING 1
            """
        } else {
            query = try """
            INSERT INTO \(unescaped: sqlName) (api, account, version, sealed, expires_at)
            VALUES (\(key.api), \(key.account), 1, \(sealed), now() + make_interval(secs => \(expiresIn)))
            ON CONFLICT DO NOTHING
            RETURNING 1
            """
        }
        return try await changedOneRow("write the token", query)
    }

    private func changedOneRow(_ what: String, _ query: PostgresQuery) async throws -> Bool {
        try await run(what) { client in
            var count = 0
            for try await _ in try await client.query(query, logger: logger) { count += 1 }
            return count == 1
        }
    }

    /// Runs `body` within `queryTimeout`, turning postgres-nio's errors into the store's.
    private func run<Result: Sendable>(
        _ what: String, _ body: @escaping @Sendable (PostgresClient) async throws -> Result
    ) async throws -> Result {
        let client = self.client
        let table = key.table
        let seconds = queryTimeout
        do {
            let late = PostgresTokenStoreError.databaseUnavailable("no answer within \(seconds) s (\(what))")
            return try await withDeadline(seconds: seconds, failure: late) { try await body(client) }
        } catch let error as PSQLError {
            throw Self.translate(error, table: table, what: what)
        }
    }

    /// The store's error for a postgres-nio error: the SQLSTATE and message of a server's
    /// refusal, or what broke the connection. Never the statement's values.
    static func translate(_ error: PSQLError, table: String, what: String) -> PostgresTokenStoreError {
        if error.code == .server, let info = error.serverInfo {
            let state = info[.sqlState] ?? "?"
            if state == "42P01" { return .tableMissing(table: table) }
            return .database("\(what): SQLSTATE \(state): \(info[.message] ?? "")")
        }
        return .databaseUnavailable("\(what): \(error.code)")
    }

    /// Whether `error` is the database refusing a value (SQLSTATE class 22, "data exception": an
    /// interval out of range, say): the same statement would be refused again.
    static func isDataException(_ error: any Error) -> Bool {
        guard case let .database(reason)? = error as? PostgresTokenStoreError else { return false }
        return reason.contains(": SQLSTATE 22")
    }

    /// The most bytes of a failure's reason stored in the row.
    static let maximumFailureBytes = 1_024

    /// `reason` as the row keeps it for the other replicas: what the redaction calls secret
    /// replaced (a token endpoint's `error` text may quote a credential), at most 1 KiB.
    static func storedFailure(_ reason: String) -> String {
        let redacted = Redaction.standard.text(reason)
        guard redacted.utf8.count > maximumFailureBytes else { return redacted }
        let mark = " […]"
        var cut = ""
        for character in redacted {
            guard cut.utf8.count + character.utf8.count <= maximumFailureBytes - mark.utf8.count else { break }
            cut.append(character)
        }
        return cut + mark
    }
}
