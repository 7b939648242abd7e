import Foundation

extension GroupOperation {
    /// Pauses the group: every sub-operation it is running is suspended (nested groups with
    /// everything they run), and each one its body starts from now on is suspended as soon as
    /// it starts. The body itself is not stopped: it goes on waiting for its operations.
    ///
    /// A suspended group keeps its slot in a queue (`isExecuting` stays true). `cancel()`
    /// cancels it and its sub-operations as usual. When the body ends while the group is
    /// suspended — its operations ended before the pause, or were cancelled — the group ends
    /// with what the body returned.
    ///
    /// - Returns: true when the group was working and is now suspended.
    @discardableResult
    public func suspend() -> Bool {
        let suspended = storage.withLock { storage -> Bool in
            guard storage.machine.suspend() != .none else { return false }
            scope.setSuspended(true)
            return true
        }
        if suspended { scope.applySuspension() }
        return suspended
    }

    /// Continues a suspended group: every sub-operation it suspended resumes where it stopped,
    /// and the ones its body starts from now on run normally.
    ///
    /// - Returns: true when the group was suspended and is working again.
    @discardableResult
    public func resume() -> Bool {
        let resumed = storage.withLock { storage -> Bool in
            guard storage.machine.resume(GroupRun()) != .none else { return false }
            scope.setSuspended(false)
            return true
        }
        if resumed { scope.applySuspension() }
        return resumed
    }

    /// Starts the group and keeps it alive until it is final, so the caller need not hold it.
    public func retainAndStart() {
        OperationRegistry.retain(self)
        whenFinal { [self] in OperationRegistry.release(self) }
        start()
    }
}
