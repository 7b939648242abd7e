import Foundation
import Logging
import NetOps
import NetOpsHTTP
import PostgresNIO

/// A rate budget in PostgreSQL that every replica of a service draws from, so that together
/// they stay under an API's limit: give it to the scope's rate limit
/// (`RateLimiter.Configuration(requestsPerInterval:interval:burst:sharedBudget:)`), the same
/// numbers on every replica.
///
/// One row per budget name holds the bucket's tokens and when it was last refilled, on the
/// database's clock. A claim refills the bucket for the time passed and takes what it can in one
/// statement under the row's lock, so two replicas never take the same token.
///
/// ```swift
/// let budget = try PostgresRateBudget(client: postgres, name: "github")
/// try await budget.migrate()                    // once
/// configuration.rateLimit = RateLimiter.Configuration(requestsPerInterval: 5_000, interval: 3_600, sharedBudget: budget)
/// ```
public final class PostgresRateBudget: SharedRateBudget {
    /// The budget's name: every replica of the API uses the same.
    public let name: String
    /// The table (a lower-case SQL identifier, or `schema.table`; schema `public` unless named):
    /// `apilayer_rate_budgets` by default.
    public let table: String
    /// Tokens taken at once (1 by default: the fleet's use is exact, one statement per call).
    public let batchSize: Int
    private let client: PostgresClient
    private let queryTimeout: Double
    private let logger: Logger
    /// Whether the row is known to exist.
    private let rowMade = Locked(false)

    /// A budget named `name` in `client`'s database.
    ///
    /// - Parameters:
    ///   - client: the service's PostgreSQL client, which it runs.
    ///   - name: the budget's name, the same on every replica.
    ///   - table: the budget table (a lower-case SQL identifier).
    ///   - batchSize: tokens taken at once; more saves statements, but a replica may then hold
    ///     tokens it does not use while others wait.
    ///   - queryTimeout: the most seconds a claim may take before it counts as failed.
    ///   - logger: where a failed claim is reported.
    /// - Throws: `PostgresTokenStoreError.invalidConfiguration` for a table name that is not an identifier.
    public init(
        client: PostgresClient, name: String, table: String = "apilayer_rate_budgets", batchSize: Int = 1, queryTimeout: Double = 5,
        logger: Logger = Logger(label: "APILayer.PostgresRateBudget")
    ) throws {
        guard TokenTable.isValidTableName(table) else {
            throw PostgresTokenStoreError.invalidConfiguration(
                "table name \(table) is not a lower-case SQL identifier, or two of them (schema.table)")
        }
        self.client = client
        self.name = name
        self.table = table
        self.batchSize = max(1, batchSize)
        self.queryTimeout = queryTimeout
        self.logger = logger
    }

    /// The SQL that creates the budget table: what `migrate()` runs.
    public static func migrationSQL(table: String = "apilayer_rate_budgets") throws -> String {
        guard TokenTable.isValidTableName(table) else {
            throw PostgresTokenStoreError.invalidConfiguration(
                "table name \(table) is not a lower-case SQL identifier, or two of them (schema.table)")
        }
        return """
            CREATE TABLE IF NOT EXISTS \(TokenTable.qualified(table)) (
                name text PRIMARY KEY,
                tokens double precision NOT NULL,
                refilled_at timestamptz NOT NULL DEFAULT now()
            )
            """
    }

    /// Creates the budget table if it does not exist (never run implicitly).
    public func migrate() async throws {
        let sql = try Self.migrationSQL(table: table)
        _ = try await run("migrate") { client, logger in try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger) }
    }

    /// Refills the bucket for the time since the last claim and takes up to `count` tokens.
    public func claim(_ count: Int, rate: Int, interval: Double, burst: Int) async throws -> RateBudgetGrant {
        let (name, table) = (self.name, self.table)
        if !rowMade.withLock({ $0 }) {
            let insert: PostgresQuery = """
                INSERT INTO \(unescaped: TokenTable.qualified(table)) (name, tokens, refilled_at) VALUES (\(name), \(Double(burst)), now())
                ON CONFLICT DO NOTHING
                """
            _ = try await run("make the budget") { client, logger in try await client.query(insert, logger: logger) }
            rowMade.withLock { $0 = true }
        }
        let perSecond = Double(rate) / interval
        let claim: PostgresQuery = """
            WITH current AS (
                SELECT LEAST(\(Double(burst)), tokens + EXTRACT(EPOCH FROM now() - refilled_at)::float8 * \(perSecond)) AS available
                FROM \(unescaped: TokenTable.qualified(table)) WHERE name = \(name) FOR UPDATE
            )
            UPDATE \(unescaped: TokenTable.qualified(table)) SET tokens = current.available - LEAST(floor(current.available), \(Double(count))), refilled_at = now()
            FROM current WHERE \(unescaped: TokenTable.qualified(table)).name = \(name)
            RETURNING LEAST(floor(current.available), \(Double(count)))::float8, current.available
            """
        let (granted, available) = try await run("claim") { client, logger -> (Double, Double) in
            for try await row in try await client.query(claim, logger: logger).decode((Double, Double).self) { return row }
            return (0, 0)
        }
        let tokens = Int(granted)
        return RateBudgetGrant(granted: tokens, retryAfter: tokens > 0 ? 0 : max(0.001, (1 - available) / perSecond))
    }

    private func run<Result: Sendable>(
        _ what: String, _ body: @escaping @Sendable (PostgresClient, Logger) async throws -> Result
    ) async throws -> Result {
        let (client, logger, table, seconds) = (self.client, self.logger, self.table, queryTimeout)
        do {
            let late = PostgresTokenStoreError.databaseUnavailable("no answer within \(seconds) s (\(what))")
            return try await withDeadline(seconds: seconds, failure: late) { try await body(client, logger) }
        } catch let error as PSQLError {
            let translated = TokenTable.translate(error, table: table, what: what)
            logger.warning("the shared rate budget failed: \(translated)")
            throw translated
        }
    }
}
