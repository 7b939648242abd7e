import Foundation

extension BaseOperation {
    /// Adds a closure called once when the operation reaches a final state (success, failure or
    /// cancellation), before `isFinished` is posted and before `syncStart()`/`run()` return.
    ///
    /// Added to a finished operation, it runs at once. Closures run in the order they were added,
    /// on an internal thread.
    /// A typed operation may add an `onCompletion` whose closure takes its typed result; that
    /// one is preferred where both fit.
    @discardableResult @_disfavoredOverload
    public func onCompletion(_ handler: @escaping @Sendable (Self) -> Void) -> Self {
        let runNow = withLock { () -> Bool in
            guard !storage.listeners.completionsTaken else { return true }
            storage.listeners.completionHandlers.append { handler(unsafeDowncast($0, to: Self.self)) }
            return false
        }
        if runNow { handler(self) }
        return self
    }

    /// Adds a completion closure that never blocks and does nothing slow beyond what the end of
    /// the operation does anyway (APILayer's result and telemetry): unlike `onCompletion(_:)`,
    /// it keeps an awaited operation's end with the awaiting task (`EndRelay`).
    package func onEnd(_ handler: @escaping @Sendable (BaseOperation) -> Void) {
        let runNow = withLock { () -> Bool in
            guard !storage.listeners.completionsTaken else { return true }
            storage.listeners.completionHandlers.append(handler)
            storage.listeners.nonBlockingCompletions += 1
            return false
        }
        if runNow { handler(self) }
    }

    /// Adds a closure called whenever bytes move, with the progress after the move.
    @discardableResult
    public func onProgress(_ handler: @escaping @Sendable (Self, TransferProgress) -> Void) -> Self {
        withLock { storage.listeners.progressHandlers.append { handler(unsafeDowncast($0, to: Self.self), $1) } }
        return self
    }

    /// Adds a closure called on every state change.
    @discardableResult
    public func onStateChange(_ handler: @escaping @Sendable (Self, OperationState) -> Void) -> Self {
        withLock { storage.listeners.stateHandlers.append { handler(unsafeDowncast($0, to: Self.self), $1) } }
        return self
    }

    /// Where the operation's state, progress and completion closures and its delegate run; nil
    /// (the default): on an internal thread, where each event arrives.
    ///
    /// Given a queue, every closure runs there, asynchronously; a serial queue keeps them in the
    /// order of the events. The end is posted after the completions on that queue: `isFinished`,
    /// then the return of `syncStart()` and `run()`. So never wait for the operation on that
    /// queue itself (`syncStart()` from it, say): the completions could not run. Set it before
    /// `start()`; a scope's operations take `APIScope.Configuration.callbackQueue`.
    public var callbackQueue: DispatchQueue? {
        get { withLock { storage.settings.callbackQueue } }
        set { updateSettings { settings in settings.callbackQueue = newValue } }
    }

    /// The delegate told of state changes, progress and the end (held weakly).
    public var delegate: (any NetworkOperationDelegate)? {
        get { withLock { lockedDelegate } }
        set { withLock { lockedDelegate = newValue } }
    }

    /// Calls `waiter` once the operation is final and its completions ran (at once if it is).
    /// Adds no completion closure: an awaited operation still ends without a dispatch hop.
    package func whenFinal(_ waiter: @escaping @Sendable () -> Void) {
        let runNow = withLock { () -> Bool in
            guard !storage.listeners.waitersReleased else { return true }
            storage.listeners.finalWaiters.append(waiter)
            return false
        }
        if runNow { waiter() }
    }

    func notifyState(_ state: OperationState) {
        let (handlers, delegate) = withLock { (storage.listeners.stateHandlers, lockedDelegate) }
        for handler in handlers { handler(self, state) }
        delegate?.operation(self, didChangeStateTo: state)
    }

    /// Runs and drops the completion closures; also drops the progress and state closures, so
    /// nothing they captured outlives the operation's work.
    func runCompletions() {
        let (handlers, delegate) = withLock { () -> ([@Sendable (BaseOperation) -> Void], (any NetworkOperationDelegate)?) in
            storage.listeners.completionsTaken = true
            let delegate = lockedDelegate
            // With nobody to hear the end, nothing is kept (one lock hold, as an awaited call
            // has it). Otherwise the closures stay until they ran: a completion that postpones
            // the operation hands them to its successor (`postpone(_:modification:)`).
            if storage.listeners.completionHandlers.isEmpty, delegate == nil { dropListenersLocked() }
            return (storage.listeners.completionHandlers, delegate)
        }
        guard !handlers.isEmpty || delegate != nil else { return }
        for handler in handlers { handler(self) }
        delegate?.operationDidFinish(self)
        withLock { dropListenersLocked() }
    }

    /// Tells the stages of the operation's chain that it ended (`operationDidFinish`): once,
    /// after its completions. An operation that never started tells the stages it was given.
    func tellStagesOfEnd() {
        let stages = withLock { () -> [any NetworkMiddleware] in
            if let chain = storage.frozen?.chain { return chain }
            let settings = storage.settings
            return (settings.interceptorStage.map { [$0] } ?? []) + settings.middleware
        }
        for stage in stages { stage.operationDidFinish(self) }
    }

    /// Drops the completion, progress and state closures, so nothing they captured outlives the
    /// operation's work. Call with the lock held.
    private func dropListenersLocked() {
        storage.listeners.completionHandlers = []
        storage.listeners.nonBlockingCompletions = 0
        storage.listeners.progressHandlers = []
        storage.listeners.stateHandlers = []
    }

    func releaseFinalWaiters() {
        let (waiters, listed, successor) = withLock { () -> ([@Sendable () -> Void], Bool, BaseOperation?) in
            let waiters = storage.listeners.finalWaiters
            storage.listeners.finalWaiters = []
            storage.listeners.waitersReleased = true
            return (waiters, storage.ownership.isListed, storage.postponement?.successor)
        }
        if let successor {
            // Postponed from its completion: its waiters wait for the operation replacing it.
            for waiter in waiters { successor.whenFinal(waiter) }
        } else {
            for waiter in waiters { waiter() }
        }
        if listed { OperationRegistry.untrack(self) }
    }
}
