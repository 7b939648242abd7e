import Foundation

/// The notifications one change of an operation's machine calls for, decided under its lock.
struct LifecycleChange {
    /// `isExecuting` changed.
    var postExecuting = false
    /// `isFinished` changed.
    var postFinished = false
    /// The operation reached a final state: its completions and waiters are due.
    var becameFinal = false

    /// No notification.
    init() {}

    /// What changed between two snapshots of a machine.
    init(from before: LifecycleSnapshot, to after: LifecycleSnapshot) {
        postExecuting = before.isExecuting != after.isExecuting
        postFinished = before.isFinished != after.isFinished
        becameFinal = before.state.isWorkingOrInProcess && after.state.isFinishedOrCancelled
    }
}

/// The life network operations and groups share once their lock is released: key-value
/// notifications for a queue, the completions, and the waiters of `syncStart()`, `run()` and
/// `finished()`, always in the same order.
///
/// `isFinished` answers what was recorded between its will- and did-change notifications, after
/// the completions ran, so an `OperationQueue` never frees a slot (and starts the next operation)
/// before an operation's completions are done.
protocol OperationLifecycle: Operation {
    /// Runs and drops the completion closures and tells the delegate; called once, at the end.
    func runCompletions()
    /// Tells the stages of the operation's chain it ended (`NetworkMiddleware.operationDidFinish`);
    /// called once, after the completions.
    func tellStagesOfEnd()
    /// Records, under the operation's lock, the `isFinished` its machine has now.
    func recordPostedFinished()
    /// Releases everyone waiting for the end, and unlists the operation for owners.
    func releaseFinalWaiters()
}

extension OperationLifecycle {
    /// Posts an `isExecuting` change that comes without an end (start, suspension, resumption).
    func publishExecuting(_ change: LifecycleChange) {
        guard change.postExecuting, !change.postFinished else { return }
        willChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isExecuting")
    }

    /// Carries out the end: completions, `isExecuting`, `isFinished`, then the waiters.
    func publishEnd(_ change: LifecycleChange) {
        if change.becameFinal {
            runCompletions()
            tellStagesOfEnd()
        }
        if change.postExecuting, change.postFinished {
            willChangeValue(forKey: "isExecuting")
            didChangeValue(forKey: "isExecuting")
        }
        if change.postFinished {
            willChangeValue(forKey: "isFinished")
            recordPostedFinished()
            didChangeValue(forKey: "isFinished")
        }
        if change.becameFinal { releaseFinalWaiters() }
    }
}
