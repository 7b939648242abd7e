import NetOps

/// A rate budget that several processes share — a service's replicas calling one API with one
/// limit between them. A `RateLimiter` given one draws its tokens from it, a batch at a time,
/// instead of refilling a bucket of its own; the budget's keeper (APILayerPostgres's
/// `PostgresRateBudget`, a row in PostgreSQL) refills it at the limiter's rate.
public protocol SharedRateBudget: AnyObject, Sendable {
    /// How many tokens a limiter asks for at once (1 keeps the fleet's use exact; more saves
    /// round trips, and a replica may sit on tokens it does not use).
    var batchSize: Int { get }

    /// Takes up to `count` tokens from a bucket of `burst` tokens refilled at `rate` per
    /// `interval` seconds.
    ///
    /// - Returns: the tokens granted (0 when the bucket is empty) and, when none was, the seconds
    ///   until one is there.
    /// - Throws: when the budget cannot be reached; the limiter keeps its calls parked and asks again.
    func claim(_ count: Int, rate: Int, interval: Double, burst: Int) async throws -> RateBudgetGrant
}

/// What a `SharedRateBudget` granted.
public struct RateBudgetGrant: Sendable, Equatable {
    /// Tokens granted, each one request.
    public var granted: Int
    /// When none was granted, seconds until a token is there.
    public var retryAfter: Double

    /// A grant of `granted` tokens, or of none with the seconds to wait.
    public init(granted: Int, retryAfter: Double = 0) {
        self.granted = granted
        self.retryAfter = retryAfter
    }
}
