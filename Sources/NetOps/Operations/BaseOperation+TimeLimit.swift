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

    /// What counts as "the same request" for `timeLimitBetweenRuns`: by default the method and URL.
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
        return "\(method) \(url?.absoluteString ?? "")"
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

    /// Frees the run slot, starting the time limit. Call with the lock held.
    func releaseRunSlotLocked() {
        guard storage.history.holdsRunSlot else { return }
        storage.history.holdsRunSlot = false
        let next = Date(timeIntervalSinceNow: storage.settings.timeLimitBetweenRuns)
        storage.history.dateDelayAfterExecution = next
        RunLimits.release(runLimitKeyLocked(url: currentURL), until: next)
    }
}

/// When each limited request may run next (`Date.distantFuture` while one runs).
enum RunLimits {
    private static let nextAllowed = Locked<[String: Date]>([:])

    /// Takes the slot for `key`; returns the date it is taken until when it is not free.
    static func claim(_ key: String) -> Date? {
        nextAllowed.withLock { table in
            let now = Date()
            if let until = table[key], until > now { return until }
            table[key] = .distantFuture
            return nil
        }
    }

    static func release(_ key: String, until date: Date) {
        nextAllowed.withLock { $0[key] = date }
    }
}
