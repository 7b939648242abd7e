import Foundation

/// When each limited request of a session may run next (`Date.distantFuture` while one runs):
/// the table behind `BaseOperation.timeLimitBetweenRuns`, one per session.
///
/// Bounded: an entry whose time limit has passed says nothing any more and is dropped. The
/// table is swept when it has grown to twice its size after the last sweep (at least 64
/// entries), so the sweep costs O(1) per claim on average and the table holds no more than
/// twice the requests still within their limit (or running). Its lock is never taken under an
/// operation's: a slot is claimed before the operation's lock is taken and released after.
package final class RunLimits: Sendable {
    private struct Table {
        var nextAllowed: [String: Date] = [:]
        /// The size at which the next sweep runs.
        var sweepAt = 64

        mutating func sweep(now: Date) {
            nextAllowed = nextAllowed.filter { $0.value > now }
            sweepAt = max(64, nextAllowed.count * 2)
        }
    }

    private let table = Locked(Table())

    /// An empty table.
    package init() {}

    /// Takes the slot for `key`; returns the date it is taken until when it is not free.
    package func claim(_ key: String) -> Date? {
        table.withLock { table in
            let now = Date()
            if let until = table.nextAllowed[key] {
                if until > now { return until }
            } else if table.nextAllowed.count >= table.sweepAt {
                table.sweep(now: now)
            }
            table.nextAllowed[key] = .distantFuture
            return nil
        }
    }

    /// Frees the slot for `key` until `date`.
    package func release(_ key: String, until date: Date) {
        table.withLock { table in
            if date <= Date() {
                table.nextAllowed[key] = nil
                return
            }
            table.nextAllowed[key] = date
        }
    }

    /// The entries kept (for tests).
    package var count: Int { table.withLock { $0.nextAllowed.count } }

    /// Drops every entry whose limit has passed now (for tests).
    package func sweepNow() {
        table.withLock { $0.sweep(now: Date()) }
    }
}
