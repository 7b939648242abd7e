import APILayer
import Foundation
import NetOps
import NetOpsHTTP

extension PostgresTokenStore {
    /// The refresh across replicas: picks up a token another replica stored, or takes the lease
    /// and refreshes for all of them, or waits for the replica holding the lease.
    ///
    /// 1. Read the row. A stored token other than `current`, not about to expire, is another
    ///    replica's refresh: return it, no request. A row emptied by a logout (a version, no
    ///    token) is a tombstone: fail with `AuthenticationError.tokenRemoved`, presenting nothing.
    /// 2. A failure counted since this replica began waiting means the refresh it waited for
    ///    failed: fail with its reason. A stored refresh token the token endpoint refused is
    ///    never presented again.
    /// 3. While another replica's lease is active, read again after a pause (50 ms doubling to
    ///    0.25 s), up to `lockWaitTimeout`.
    /// 4. Otherwise take the lease (a conditional `UPDATE`, or the row's `INSERT`): the first
    ///    replica wins, the others go back to 1. The winner calls `authenticator` with the
    ///    *stored* token (its refresh token is the newest), within the lease, and writes the
    ///    fresh token as the next version, ending its lease in the same statement. When the row
    ///    changed meanwhile (a login, a logout), it returns the row's token, or fails with
    ///    `tokenRemoved`, instead of its fresh one.
    public func refresh(current: Token?, using authenticator: any Authenticator) async throws -> Token {
        let started = ContinuousClock.now
        let waitLimit = Duration.seconds(configuration.lockWaitTimeout)
        var pause = configuration.pollInterval
        var failuresSeen: Int64?
        while true {
            try Task.checkCancellation()
            let row = try await table.read()
            let stored = try row.flatMap(open)
            if let stored, stored.accessToken != current?.accessToken, !stored.isExpired(leeway: configuration.expiryLeeway) {
                local.withLock { $0 = Local(token: stored, version: row?.version) }
                logger.debug("picked up the token another replica refreshed", metadata: ["api": "\(configuration.api)"])
                return stored
            }
            if let row, row.isTombstone {
                // A logout (here or on another replica) emptied the row: the token it removed is
                // never presented again, whatever this replica still holds.
                local.withLock { $0 = Local(token: nil, version: row.version) }
                throw AuthenticationError.tokenRemoved
            }
            let failures = row?.failures ?? 0
            if let seen = failuresSeen, failures > seen {
                throw PostgresTokenStoreError.refreshFailedElsewhere(reason: row?.failure ?? "unknown")
            }
            failuresSeen = failures
            let presenting = stored ?? current
            if let refused = row?.refusedDigest, let refreshToken = presenting?.refreshToken,
                TokenSealer.digest(of: refreshToken) == refused
            {
                throw PostgresTokenStoreError.refreshTokenRefused(reason: row?.failure ?? "refused")
            }
            if row?.leaseActive == true {
                guard ContinuousClock.now - started < waitLimit else {
                    throw PostgresTokenStoreError.lockWaitTimedOut(seconds: configuration.lockWaitTimeout, holder: row?.leaseHolder)
                }
                try await Task.sleep(for: .seconds(pause))
                pause = min(pause * 2, 0.25)
                continue
            }
            let lease = UUID()
            guard
                try await table.takeLease(
                    id: lease, holder: configuration.holder, seconds: configuration.lease, version: row?.version)
            else { continue }
            return try await refreshHolding(lease, version: row?.version ?? 0, presenting: presenting, using: authenticator)
        }
    }

    /// Calls `authenticator` under the lease `lease` (the row at `version`) and writes what it
    /// brings; on failure ends the lease with the reason, so that the waiters fail with it.
    private func refreshHolding(
        _ lease: UUID, version: Int64, presenting: Token?, using authenticator: any Authenticator
    ) async throws -> Token {
        logger.debug("holding the refresh lease", metadata: ["api": "\(configuration.api)", "holder": "\(configuration.holder)"])
        let seconds = max(0.5, configuration.lease - 0.5)
        let fresh: Token
        do {
            fresh = try await withDeadline(seconds: seconds, failure: PostgresTokenStoreError.refreshOutlivedLease(seconds: seconds)) {
                try await authenticator.refresh(current: presenting)
            }
        } catch {
            let reason = (error as? AuthenticationError)?.description ?? String(describing: error)
            let refused = Self.isRefusal(error) ? presenting?.refreshToken.map(TokenSealer.digest) : nil
            // Ended even when this task is cancelled (a service stopping), so that no replica
            // waits for a lease nobody holds.
            let table = self.table
            let logger = self.logger
            Task {
                do { try await table.failLease(id: lease, reason: reason, refusedDigest: refused) } catch {
                    logger.warning("the refresh lease could not be ended; it runs out by itself: \(error)")
                }
            }
            throw error
        }
        let next = version + 1
        let sealed = try sealer.seal(fresh, row: table.key, version: next)
        let expiresIn = secondsLeft(fresh)
        do {
            if try await table.finishLease(id: lease, version: version, sealed: sealed, expiresIn: expiresIn) {
                local.withLock { $0 = Local(token: fresh, version: next) }
            } else {
                // The row changed under the lease: a login, a logout, or another replica's
                // refresh after this lease ran out. The row decides, not the fresh token (which
                // may be the previous account's).
                logger.warning("the refreshed token was not stored: the row changed under the lease")
                return try await rowAfterLostLease(since: version, fresh: fresh)
            }
        } catch {
            // The database went away after the token endpoint answered: the old refresh token is
            // spent, so the fresh token is written as soon as the database is back.
            local.withLock { $0.token = fresh }
            logger.error("the refreshed token could not be stored; retrying in the background: \(error)")
            writeLater(sealed: sealed, version: version, expiresIn: expiresIn)
        }
        return fresh
    }

    /// What a replica whose lease was lost (the row is past `version`) uses: the token the row
    /// holds now (a login's, or another replica's refresh), or none after a logout. When the row
    /// cannot be read, or holds nothing newer, the fresh token.
    private func rowAfterLostLease(since version: Int64, fresh: Token) async throws -> Token {
        guard let row = try? await table.read(), row.version > version else {
            local.withLock { $0.token = fresh }
            return fresh
        }
        if row.isTombstone {
            local.withLock { $0 = Local(token: nil, version: row.version) }
            throw AuthenticationError.tokenRemoved
        }
        guard let stored = try open(row) else {
            local.withLock { $0.token = fresh }
            return fresh
        }
        local.withLock { $0 = Local(token: stored, version: row.version) }
        return stored
    }

    /// Writes a refreshed token the database missed, every quarter second for up to ten
    /// minutes, unless the row changed meanwhile or the database refuses the value itself
    /// (SQLSTATE class 22).
    private func writeLater(sealed: Data, version: Int64, expiresIn: Double?) {
        let table = self.table
        let logger = self.logger
        let writtenAt = Date()
        Task {
            for _ in 0..<2_400 {
                try? await Task.sleep(for: .milliseconds(250))
                let left = expiresIn.map { $0 - Date().timeIntervalSince(writtenAt) }
                do {
                    let stored = try await table.writeLate(version: version, sealed: sealed, expiresIn: left)
                    if !stored { logger.warning("the late refreshed token was not stored: the row changed meanwhile") }
                    return
                } catch  where TokenTable.isDataException(error) {
                    // The database refuses the value itself: trying again changes nothing.
                    logger.error("the refreshed token was never stored: the database refuses it: \(error)")
                    return
                } catch {
                    continue
                }
            }
            logger.error("the refreshed token was never stored: the database stayed away")
        }
    }

    /// Whether `error` says the token endpoint refused the refresh token for good (a 4xx answer
    /// such as `invalid_grant`), as opposed to a failure worth trying again.
    static func isRefusal(_ error: any Error) -> Bool {
        guard case let .tokenEndpoint(status, _)? = error as? AuthenticationError else { return false }
        return (400..<500).contains(status) && status != 429
    }
}
