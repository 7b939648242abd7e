extension BaseOperation {
    /// Starts the operation and waits for it without blocking a thread; returns the operation
    /// when it succeeded.
    ///
    /// ```swift
    /// let operation = try await DataTaskOperation.get(url).run()
    /// ```
    ///
    /// Cancelling the calling `Task` cancels the operation. Call it on an operation that is not
    /// in a queue (for one in a queue, `await operation.finished()`).
    ///
    /// - Throws: the operation's `NetOpsError` when it failed or was cancelled.
    /// A typed operation of another module (APILayer's `APIOperation`) offers a `run()` that
    /// returns its model; that one is preferred where both fit.
    @discardableResult @_disfavoredOverload
    public func run() async throws -> Self {
        await startAndRelayEnds()
        // Postponed after it ended: the outcome is its successor's.
        if let error = latestSuccessor.error { throw error }
        return self
    }

    /// Waits until the operation is final, whoever starts it (a queue, another thread).
    public func finished() async {
        await awaitFinal()
    }
}
