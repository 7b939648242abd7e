import Foundation

extension BaseOperation {
    /// The least number of seconds between the end of one run and the start of the next run of
    /// the same request (same `runLimitKey`); 0, the default, for no limit.
    ///
    /// While a run with a limit is working, or until the limit has passed after it ended, another
    /// operation with the same key fails at start with `.tooSoon`, naming when it may run. Use it
    /// to keep a repeated trigger from sending the same request again and again.
    public var timeLimitBetweenRuns: TimeInterval {
        get { withLock { storage.settings.timeLimitBetweenRuns } }
        set { withLock { storage.settings.timeLimitBetweenRuns = max(0, newValue) } }
    }

    /// What counts as "the same request" for `timeLimitBetweenRuns`: by default the method and the
    /// URL without its query and fragment (a request whose query changes, a cache-buster or a
    /// timestamp, is still the same request, and the table of limits does not grow with it).
    public var runLimitKey: String {
        get { withLock { runLimitKeyLocked(url: currentURL) } }
        set { withLock { storage.settings.runLimitKey = newValue } }
    }

    /// When the next run of the same request may start; nil until a limited run ended.
    public var dateDelayAfterExecution: Date? {
        withLock { storage.history.dateDelayAfterExecution }
    }

    private func runLimitKeyLocked(url: URL?) -> String {
        if let key = storage.settings.runLimitKey { return key }
        let method = (try? storage.request.get())?.httpMethod ?? "GET"
        return "\(method) \(Self.runLimitURL(url))"
    }

    /// `url` without its query and fragment.
    static func runLimitURL(_ url: URL?) -> Substring {
        let text = url?.absoluteString ?? ""
        return text.prefix { $0 != "?" && $0 != "#" }
    }

    /// Takes the run slot of this request, or says why not. Call with the lock held.
    func claimRunSlotLocked(url: URL) -> NetOpsError? {
        guard storage.settings.timeLimitBetweenRuns > 0 else { return nil }
        let key = runLimitKeyLocked(url: url)
        let refusedUntil = RunLimits.claim(key)
        if let refusedUntil { return NetOpsError(.tooSoon(retryAfter: refusedUntil), url: url) }
        storage.history.holdsRunSlot = true
        return nil
    }

    /// Frees the run slot, starting the time limit: returns the key and date to hand to
    /// `RunLimits.release` once the lock is left, nil when the operation held no slot. Call with
    /// the lock held.
    func releaseRunSlotLocked() -> (key: String, until: Date)? {
        guard storage.history.holdsRunSlot else { return nil }
        storage.history.holdsRunSlot = false
        let next = Date(timeIntervalSinceNow: storage.settings.timeLimitBetweenRuns)
        storage.history.dateDelayAfterExecution = next
        return (runLimitKeyLocked(url: currentURL), next)
    }
}

/// When each limited request may run next (`Date.distantFuture` while one runs).
///
/// Bounded: an entry whose time limit has passed says nothing any more and is dropped. The
/// table is swept when it has grown to twice its size after the last sweep (at least 64
/// entries), so the sweep costs O(1) per claim on average and the table holds no more than
/// twice the requests still within their limit (or running).
enum RunLimits {
    private struct Table {
        var nextAllowed: [String: Date] = [:]
        /// The size at which the next sweep runs.
        var sweepAt = 64

        mutating func sweep(now: Date) {
            nextAllowed = nextAllowed.filter { $0.value > now }
            sweepAt = max(64, nextAllowed.count * 2)
        }
    }

    private static let table = Locked(Table())

    /// Takes the slot for `key`; returns the date it is taken until when it is not free.
    static func claim(_ key: String) -> Date? {
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
    static func release(_ key: String, until date: Date) {
        table.withLock { table in
            let now = Date()
            if date <= now {
                table.nextAllowed[key] = nil
                return
            }
            table.nextAllowed[key] = date
        }
    }

    /// The entries kept (for tests).
    static var count: Int { table.withLock { $0.nextAllowed.count } }

    /// Drops every entry whose limit has passed now (for tests).
    static func sweepNow() {
        table.withLock { $0.sweep(now: Date()) }
    }
}
