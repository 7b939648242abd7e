extension GroupOperation {
    /// The sub-operations started and ended so far, and the bytes they moved (see `GroupProgress`).
    public var progress: GroupProgress { scope.progress }

    /// Adds a closure called whenever a sub-operation starts, moves bytes or ends, with the
    /// group's progress after the change. Calls come one at a time, in order, outside the
    /// group's lock; the closures are dropped when the group ends.
    @discardableResult
    public func onProgress(_ handler: @escaping @Sendable (GroupOperation<Result>, GroupProgress) -> Void) -> Self {
        storage.withLock { $0.progressHandlers.append(handler) }
        return self
    }

    /// The delegate told of the group's progress and of its end (held weakly).
    public var delegate: (any GroupOperationDelegate)? {
        get { storage.withLock { $0.delegate } }
        set { storage.withLock { $0.delegate = newValue } }
    }

    /// Tells the closures and the delegate; called by the scope, one change at a time.
    func reportProgress(_ progress: GroupProgress) {
        let (handlers, delegate) = storage.withLock { ($0.progressHandlers, $0.delegate) }
        for handler in handlers { handler(self, progress) }
        delegate?.groupOperation(self, didUpdate: progress)
    }
}
