import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension BaseOperation {
    /// The session operations run in unless they have a `privateSession`.
    @available(
        *, deprecated, renamed: "NetworkSession.shared",
        message: "sessions are configured when made; give an operation its own with privateSession"
    )
    public static var defaultSession: NetworkSession { NetworkSession.shared }

    /// The session this operation runs in; nil (the default) runs it in `NetworkSession.shared`,
    /// which is made only then.
    ///
    /// Like every setting of an operation, it is read when the operation starts: setting it
    /// after `start()` is a programming error (a debug build stops at an assertion; a release
    /// build ignores the change).
    public var privateSession: NetworkSession? {
        get { withLock { storage.settings.privateSession } }
        set { updateSettings { settings in settings.privateSession = newValue } }
    }

    /// The stages of this operation's own, after its session's (and its API scope's):
    /// see `NetworkMiddleware`. Read when the operation starts.
    public var middleware: [any NetworkMiddleware] {
        get { withLock { storage.settings.middleware } }
        set { updateSettings { settings in settings.middleware = newValue } }
    }

    /// Adds `stage` after the operation's other stages, before it starts. The chain of a
    /// running operation is fixed: adding a stage after `start()` is refused (a programming
    /// error: a debug build stops at an assertion, a release build leaves the chain as it is).
    @discardableResult
    public func use(_ stage: any NetworkMiddleware) -> Self {
        updateSettings { settings in settings.middleware.append(stage) }
        return self
    }

    /// Changes a setting of an operation that has not started. After `start()` the settings
    /// are frozen: a change then is a programming error, which a debug build stops at (an
    /// assertion), and a release build ignores.
    func updateSettings(_ change: (inout Settings) -> Void) {
        let refused = withLock { () -> Bool in
            guard storage.frozen == nil else { return true }
            change(&storage.settings)
            return false
        }
        if refused {
            assertionFailure(
                "a setting of an operation was changed after start(): its settings and stages were fixed when it started, "
                    + "so the change is ignored; set it before start()")
        }
    }

    /// The session and chain an operation fixes when it first starts, made outside its lock.
    struct Fixing {
        let frozen: Frozen
        /// False when the operation had fixed them already (`frozen` is what it fixed).
        let isNew: Bool
        /// The run slot claimed for it, to release if another start fixed first.
        let runKey: String?
    }

    /// Makes the session and the chain of the first start, and claims its run slot
    /// (`timeLimitBetweenRuns`), outside the operation's lock; on a later start, returns what
    /// was fixed.
    func freezing() -> Fixing {
        let (fixed, settings, request) = withLock { (storage.frozen, storage.settings, try? storage.request.get()) }
        if let fixed { return Fixing(frozen: fixed, isNew: false, runKey: nil) }
        // `NetworkSession.shared` is made here, outside the lock, and only when needed.
        let session = settings.privateSession ?? NetworkSession.shared
        var runKey: String?
        var refusal: NetOpsError?
        if settings.timeLimitBetweenRuns > 0, let url = request?.url {
            let key = Self.runLimitKey(settings: settings, request: request)
            if let until = session.runLimits.claim(key) {
                refusal = NetOpsError(.tooSoon(retryAfter: until), url: url)
            } else {
                runKey = key
            }
        }
        var chain = session.options.middleware
        let retry = settings.retryPolicy ?? session.options.retryPolicy
        if retry.maximumAttempts > 1 { chain.append(RetryMiddleware(policy: retry)) }
        if let interceptor = settings.interceptorStage { chain.append(interceptor) }
        chain += settings.middleware
        chain.append(ConnectivityMiddleware(monitor: settings.connectivityMonitor))
        return Fixing(frozen: Frozen(session: session, chain: chain, runSlotRefusal: refusal), isNew: true, runKey: runKey)
    }

    /// Stores what `freezing()` made, unless another start stored its own first; true when
    /// stored. Call with the lock held.
    func fixLocked(_ fixing: Fixing) -> Bool {
        guard storage.frozen == nil else { return false }
        storage.frozen = fixing.frozen
        applySessionOptionsLocked(fixing.frozen.session.options)
        if fixing.runKey != nil { storage.history.holdsRunSlot = true }
        return true
    }

    /// Fills in what the operation's maker left to its session. Call with the lock held.
    private func applySessionOptionsLocked(_ options: NetworkSession.Options) {
        let overrides = storage.settings.overrides
        if !overrides.contains(.idleTimeout), let idle = options.idleTimeout { storage.settings.idleTimeout = idle }
        if !overrides.contains(.totalTimeout), let total = options.totalTimeout { storage.settings.totalTimeout = total }
        if !overrides.contains(.maximumResponseBodyBytes) {
            storage.settings.maximumResponseBodyBytes = options.maximumResponseBodyBytes
        }
    }

    /// The statuses that count as success; others end the operation `.failedFinished` with
    /// `.httpStatus` (the body is still available). Default: 200–299.
    public var acceptableStatusCodes: Set<Int> {
        get { withLock { storage.settings.acceptableStatusCodes.codes } }
        set { updateSettings { settings in settings.acceptableStatusCodes = .chosen(newValue) } }
    }

    /// The request as the operation will send it (before any `Range` header of a resumption).
    public var request: URLRequest? {
        withLock { try? storage.request.get() }
    }

    /// Replaces the request of an operation that has not started yet.
    ///
    /// - Returns: false when the operation already started (the request is then unchanged).
    @discardableResult
    public func updateRequest(_ update: (inout URLRequest) -> Void) -> Bool {
        withLock {
            guard machine.phase == .idle, case var .success(request) = storage.request else { return false }
            update(&request)
            storage.request = .success(request)
            return true
        }
    }
}
