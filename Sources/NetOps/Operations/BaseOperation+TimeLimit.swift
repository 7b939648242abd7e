import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension BaseOperation {
    /// The least number of seconds between the end of one run and the start of the next run of
    /// the same request (same `runLimitKey`); 0, the default, for no limit.
    ///
    /// While a run with a limit is working, or until the limit has passed after it ended, another
    /// operation with the same key fails at start with `.tooSoon`, naming when it may run. Use it
    /// to keep a repeated trigger from sending the same request again and again.
    public var timeLimitBetweenRuns: TimeInterval {
        get { withLock { storage.settings.timeLimitBetweenRuns } }
        set { updateSettings { settings in settings.timeLimitBetweenRuns = max(0, newValue) } }
    }

    /// What counts as "the same request" for `timeLimitBetweenRuns`: by default the method and the
    /// URL without its query and fragment (a request whose query changes, a cache-buster or a
    /// timestamp, is still the same request, and the table of limits does not grow with it).
    /// Neither the query nor the credentials are in it: `/export?tenant=a` waits for
    /// `/export?tenant=b`, whoever sends them. A service whose tenants must not wait for each
    /// other sets a key of its own (the method, the path and the tenant).
    public var runLimitKey: String {
        get { withLock { runLimitKeyLocked() } }
        set { updateSettings { settings in settings.runLimitKey = newValue } }
    }

    /// When the next run of the same request may start; nil until a limited run ended.
    public var dateDelayAfterExecution: Date? {
        withLock { storage.history.dateDelayAfterExecution }
    }

    private func runLimitKeyLocked() -> String {
        Self.runLimitKey(settings: storage.settings, request: try? storage.request.get())
    }

    /// The key of `request` for `timeLimitBetweenRuns`: the one set, else the method and the URL
    /// without its query and fragment.
    static func runLimitKey(settings: Settings, request: URLRequest?) -> String {
        if let key = settings.runLimitKey { return key }
        return "\(request?.httpMethod ?? "GET") \(Self.runLimitURL(request?.url))"
    }

    /// `url` without its query and fragment.
    static func runLimitURL(_ url: URL?) -> Substring {
        let text = url?.absoluteString ?? ""
        return text.prefix { $0 != "?" && $0 != "#" }
    }

    /// Frees the run slot, starting the time limit: returns the key and date to hand to
    /// the session's `RunLimits` once the lock is left, nil when the operation held no slot. Call with
    /// the lock held.
    func releaseRunSlotLocked() -> (key: String, until: Date)? {
        guard storage.history.holdsRunSlot else { return nil }
        storage.history.holdsRunSlot = false
        let next = Date(timeIntervalSinceNow: storage.settings.timeLimitBetweenRuns)
        storage.history.dateDelayAfterExecution = next
        return (runLimitKeyLocked(), next)
    }
}
