/// A token store that several processes share, and through which they refresh: a replica of a
/// service that needs a fresh token asks the store, and the store makes sure that one replica
/// refreshes for all of them while the others pick the new token up.
///
/// An `AuthenticationCoordinator` whose store conforms hands every refresh to
/// `refresh(current:using:)` instead of calling its authenticator itself. Inside one process
/// the coordinator's single flight still holds, so the store sees one refresh per process at a
/// time; across processes the store coordinates (APILayerPostgres's `PostgresTokenStore` does
/// it with a lease row in PostgreSQL).
public protocol SharedTokenStore: TokenStore {
    /// A token newer than `current` when another process has one; otherwise the token
    /// `authenticator` gets, saved for every process before it is returned.
    ///
    /// - Parameters:
    ///   - current: the token this process has (nil when it has none yet), which failed or expired.
    ///   - authenticator: what gets a fresh token, called by at most one process at a time.
    /// - Throws: the authenticator's error, or the store's when it cannot coordinate.
    func refresh(current: Token?, using authenticator: any Authenticator) async throws -> Token

    /// Waits until the writes this process started (a login saved, a token removed) have
    /// reached the shared store; `APIService` waits for it when the service stops.
    func flush() async
}

extension SharedTokenStore {
    /// Nothing to wait for: every write was made when it was asked for.
    public func flush() async {}
}
