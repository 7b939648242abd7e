/// Why the shared token store failed. Descriptions name the table, API and account, never a
/// token or a sealed value.
public enum PostgresTokenStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store's configuration cannot work (a table name that is not an identifier, a key that
    /// is not 256 bits, a lease shorter than a second…).
    case invalidConfiguration(String)
    /// The database could not be reached, or did not answer within `queryTimeout`.
    case databaseUnavailable(String)
    /// The database refused a statement (its SQLSTATE and message).
    case database(String)
    /// The token table does not exist: run `migrate()` (or the SQL of `migrationSQL(table:)`) once.
    case tableMissing(table: String)
    /// The stored token does not open with any key given (a wrong key, a row altered or moved).
    case undecryptable(api: String, account: String, reason: String)
    /// Sealing a token failed.
    case sealing(String)
    /// Another replica held the refresh lease longer than this replica's `lockWaitTimeout`.
    case lockWaitTimedOut(seconds: Double, holder: String?)
    /// The refresh another replica ran, which this one waited for, failed.
    case refreshFailedElsewhere(reason: String)
    /// The token endpoint refused the stored refresh token already: it is not presented again,
    /// because a rotation server revokes the whole grant on reuse. A new login (`store(_:)`) is needed.
    case refreshTokenRefused(reason: String)
    /// The authenticator did not return within the lease: the lease ends, so that another
    /// replica may take over.
    case refreshOutlivedLease(seconds: Double)

    /// One readable line.
    public var description: String {
        switch self {
        case let .invalidConfiguration(reason): return "shared token store: \(reason)"
        case let .databaseUnavailable(reason): return "shared token store: the database is unavailable: \(reason)"
        case let .database(reason): return "shared token store: the database refused: \(reason)"
        case let .tableMissing(table): return "shared token store: table \(table) does not exist; run migrate() once"
        case let .undecryptable(api, account, reason):
            return "shared token store: the token of API \(api), account \(account) does not decrypt: \(reason)"
        case let .sealing(reason): return "shared token store: sealing failed: \(reason)"
        case let .lockWaitTimedOut(seconds, holder):
            return "shared token store: another replica (\(holder ?? "unknown")) held the refresh lease for more than \(seconds) s"
        case let .refreshFailedElsewhere(reason): return "shared token store: the refresh another replica ran failed: \(reason)"
        case let .refreshTokenRefused(reason):
            return "shared token store: the stored refresh token was refused already (\(reason)); it is not presented twice: a new login is needed"
        case let .refreshOutlivedLease(seconds): return "shared token store: the refresh took longer than its lease (\(seconds) s)"
        }
    }
}
