import Dispatch

extension BaseOperation {
    /// Starts the operation and blocks the calling thread until it is final; returns the operation.
    ///
    /// ```swift
    /// let operation = DataTaskOperation.get(url).syncStart()
    /// print(operation.state, operation.receivedData.count)
    /// ```
    ///
    /// The completion closures have run when it returns. Never call it on a Swift-concurrency
    /// thread (inside a `Task` or an `async` function): it blocks one of the few threads that
    /// run every task of the process. Use `run()` there. Call it on an operation that is not in a
    /// queue: it starts the operation itself.
    @discardableResult
    public func syncStart() -> Self {
        startAndWait()
        return self
    }

    /// Starts the operation and keeps it alive until it is final, so the caller need not hold it.
    public func retainAndStart() {
        OperationRegistry.retain(self)
        whenFinal { [self] in OperationRegistry.release(self) }
        start()
    }
}
