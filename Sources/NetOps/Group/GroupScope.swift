import Foundation

/// An operation a group can adopt: cancel it, learn when it ends and how.
protocol GroupMember: AnyObject, Sendable {
    /// Ends the member as `.cancelled` (a no-op on a finished one).
    func cancel()
    /// Calls `waiter` once the member is final (at once if it is).
    func whenFinal(_ waiter: @escaping @Sendable () -> Void)
    /// The member's state, and its error when it failed.
    var memberOutcome: (state: OperationState, error: (any Error)?) { get }
    /// The member as a Foundation operation, to report it in a `GroupFailure`.
    var memberOperation: Operation { get }
    /// Calls `handler` with the member's byte counts whenever they change, until it ends.
    func observeBytes(_ handler: @escaping @Sendable (TransferProgress) -> Void)
    /// Pauses a working member; false when it was not working.
    @discardableResult func suspend() -> Bool
    /// Continues a suspended member; false when it was not suspended.
    @discardableResult func resume() -> Bool
}

extension BaseOperation: GroupMember {
    var memberOutcome: (state: OperationState, error: (any Error)?) {
        withLock { (machine.state, machine.failure) }
    }

    var memberOperation: Operation { self }

    func observeBytes(_ handler: @escaping @Sendable (TransferProgress) -> Void) {
        onProgress { _, progress in handler(progress) }
    }
}

/// The set of operations started while one group's body runs: what cancelling the group cancels.
///
/// The body of a group runs with its scope as `GroupScope.current`: a `@TaskLocal`, bound with
/// `withValue` around the body. For an async body the binding follows the body's task and every
/// child task it creates (`async let`, task groups); for a sync body, which runs on its own
/// `Thread` outside any task, `withValue` binds it to that thread (the task-local's thread-local
/// fallback), so `syncStart()` calls on that thread see it.
///
/// `BaseOperation.start()` and `GroupOperation.start()` call `GroupScope.current?.adopt(self)`:
/// the scope keeps the operation (strongly) until it ends, cancels it when the scope is
/// cancelled, and cancels at once an operation adopted after that. A member that ends
/// `.failedFinished` is reported to the group (its failure policy decides what follows).
///
/// Races it settles:
/// - `adopt` racing `cancel`: both take the scope's lock; an operation adopted before the cancel
///   is in the snapshot the cancel walks, one adopted after finds the scope cancelled.
/// - A member's end noticed twice (its final-waiter and `settle()` from the body's thread): the
///   member leaves the set under the lock, so its failure is recorded once (and it is counted
///   completed once).
/// - Progress from members on several threads: each change computes the group's progress under
///   the lock and queues it there, so the queue holds them in the order they happened; the
///   thread that finds nobody delivering becomes the deliverer and drains the queue outside the
///   lock, so the group's handlers are called one at a time, in that order.
/// - `suspend()` and `resume()` of the group racing, or a member starting while the members are
///   walked: the flag changes under the group's lock, members are acted on outside every lock,
///   and whoever acted checks the flag's change count afterwards and acts again if it moved.
package final class GroupScope: Sendable {
    /// The scope of the group whose body is running on this task or thread, if any.
    @TaskLocal package static var current: GroupScope?

    private struct State {
        var members: [ObjectIdentifier: any GroupMember] = [:]
        var failures: [GroupFailure] = []
        var isCancelled = false
        /// Whether the group is suspended: its members should be too.
        var isSuspended = false
        /// Counts the changes of `isSuspended`, so that a thread applying one notices a newer one.
        var suspensionChanges = 0
        var onFailure: (@Sendable (GroupFailure) -> Void)?
        /// The latest byte counts of each running member. A member leaves it when it ends (its
        /// counts move to `endedBytes`): an identifier is only unique while its object lives,
        /// and a running member is held in `members`, so it cannot be freed and its address
        /// reused by the next one while it is here.
        var bytes: [ObjectIdentifier: TransferProgress] = [:]
        /// The bytes of the members that ended, added up.
        var endedBytes = TransferProgress()
        var started = 0
        var completed = 0
        /// Progress computed and not yet delivered, oldest first.
        var pendingProgress: [GroupProgress] = []
        var isDelivering = false
        var onProgress: (@Sendable (GroupProgress) -> Void)?

        var progress: GroupProgress {
            GroupProgress(
                started: started, completed: completed,
                bytes: bytes.values.reduce(endedBytes) { $0.adding($1) })
        }

        /// Queues the current progress; true when the caller must deliver (nobody else is).
        mutating func queueProgress() -> Bool {
            let current = progress
            // Byte-only changes replace one another while waiting: only counts must all be seen.
            if let last = pendingProgress.last, last.completedOperations == current.completedOperations,
                last.totalOperations == current.totalOperations
            {
                pendingProgress[pendingProgress.count - 1] = current
            } else {
                pendingProgress.append(current)
            }
            guard !isDelivering else { return false }
            isDelivering = true
            return true
        }
    }

    /// Everything mutable, behind one lock.
    private let state = Locked(State())

    /// An empty scope that reports failures to nobody yet.
    init() {}

    /// Sets what is told (outside the lock) of every member that ends `.failedFinished`, once
    /// per member.
    func onFailure(_ handler: @escaping @Sendable (GroupFailure) -> Void) {
        state.withLock { $0.onFailure = handler }
    }

    /// Sets what is told (outside the lock, one at a time, in order) of every change of the
    /// scope's progress.
    func onProgress(_ handler: @escaping @Sendable (GroupProgress) -> Void) {
        state.withLock { $0.onProgress = handler }
    }

    /// The members started and ended so far, and the bytes they moved.
    var progress: GroupProgress { state.withLock { $0.progress } }

    /// True once the scope was cancelled: members are cancelled, new ones cancelled at once.
    var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// The failures recorded so far, in the order they were noticed.
    var failures: [GroupFailure] {
        settle()
        return state.withLock { $0.failures }
    }

    /// The members still running.
    var memberCount: Int { state.withLock { $0.members.count } }

    private enum Decision {
        case cancel
        case watch(deliver: Bool)
        case nothing
    }

    /// Makes `member` part of the scope: it is cancelled with the scope, and its failure reported.
    ///
    /// Adopting the same member again, or one already final, does nothing.
    func adopt(_ member: some GroupMember) {
        guard member.memberOutcome.state.isWorkingOrInProcess else { return }
        let id = ObjectIdentifier(member)
        let decision = state.withLock { state -> Decision in
            if state.isCancelled { return .cancel }
            if state.members[id] != nil { return .nothing }
            state.members[id] = member
            state.started += 1
            state.bytes[id] = TransferProgress()
            return .watch(deliver: state.queueProgress())
        }
        switch decision {
        case .cancel:
            member.cancel()
        case let .watch(deliver):
            if deliver { deliverProgress() }
            member.observeBytes { [weak self] bytes in self?.memberMoved(id, bytes) }
            member.whenFinal { [weak self] in self?.memberEnded(id) }
        case .nothing:
            break
        }
    }

    /// Cancels the scope: every member still running, and every member adopted from now on.
    func cancel() {
        let members = state.withLock { state -> [any GroupMember] in
            guard !state.isCancelled else { return [] }
            state.isCancelled = true
            return Array(state.members.values)
        }
        for member in members { member.cancel() }
    }

    // MARK: Suspension

    /// Records whether the group is suspended. Cheap: the group calls it under its own lock, so
    /// the scope's flag changes in the same order as the group's state; `applySuspension()`
    /// then carries it out, outside every lock.
    func setSuspended(_ suspended: Bool) {
        state.withLock { state in
            guard state.isSuspended != suspended else { return }
            state.isSuspended = suspended
            state.suspensionChanges &+= 1
        }
    }

    /// Suspends (or resumes) every member still running, as `setSuspended` last said.
    ///
    /// A `suspend()` and a `resume()` of the group on two threads may apply their flags to the
    /// members in the opposite order to the one they set them in; so after acting, this checks
    /// that the flag did not change meanwhile, and acts again if it did. The last thread to
    /// finish has acted on the latest flag.
    func applySuspension() {
        while true {
            let (suspended, change, members) = state.withLock { ($0.isSuspended, $0.suspensionChanges, Array($0.members.values)) }
            for member in members {
                if suspended { member.suspend() } else { member.resume() }
            }
            if state.withLock({ $0.suspensionChanges }) == change { return }
        }
    }

    /// A member has just started: when the group is suspended, it is suspended at once (it
    /// keeps the bytes that arrived, and continues when the group resumes).
    ///
    /// Called after the member's `start()`, so a `resume()` of the group that walked the members
    /// before the member was working is caught here: the flag is read again after acting.
    func memberStarted(_ member: some GroupMember) {
        let id = ObjectIdentifier(member)
        var suspendedIt = false
        while true {
            let (suspended, change, isMember) = state.withLock { ($0.isSuspended, $0.suspensionChanges, $0.members[id] != nil) }
            guard isMember else { return }
            if suspended {
                member.suspend()
                suspendedIt = true
            } else if suspendedIt {
                member.resume()
                suspendedIt = false
            } else {
                return
            }
            if state.withLock({ $0.suspensionChanges }) == change { return }
        }
    }

    /// Notices members that already ended but whose final-waiter has not run yet (a `syncStart()`
    /// returns before it does), so their failures are recorded before the body's result is used.
    func settle() {
        let members = state.withLock { Array($0.members) }
        for (id, member) in members where member.memberOutcome.state.isFinishedOrCancelled {
            memberEnded(id)
        }
    }

    /// A member ended: it leaves the set; its failure is recorded and reported once.
    ///
    /// Called only for a final member, whose outcome no longer changes: it is read before the
    /// lock is taken, and the removal and the record happen in one locked step, so a concurrent
    /// `failures` read sees the member either running or failed, never lost in between.
    private func memberEnded(_ id: ObjectIdentifier) {
        guard let member = state.withLock({ $0.members[id] }) else { return }
        let outcome = member.memberOutcome
        let failure =
            outcome.state == .failedFinished
            ? GroupFailure(operation: member.memberOperation, error: outcome.error ?? GroupError.cancelled)
            : nil
        let (report, deliver) = state.withLock { state -> ((@Sendable (GroupFailure) -> Void)?, Bool) in
            guard state.members.removeValue(forKey: id) != nil else { return (nil, false) }
            state.completed += 1
            if let bytes = state.bytes.removeValue(forKey: id) { state.endedBytes = state.endedBytes.adding(bytes) }
            let deliver = state.queueProgress()
            guard let failure else { return (nil, deliver) }
            state.failures.append(failure)
            return (state.onFailure, deliver)
        }
        // The failure first: under `.failFast` it cancels the rest without waiting for the
        // progress handlers.
        if let report, let failure { report(failure) }
        if deliver { deliverProgress() }
    }

    /// A member moved bytes: its latest counts replace its earlier ones.
    private func memberMoved(_ id: ObjectIdentifier, _ bytes: TransferProgress) {
        let deliver = state.withLock { state -> Bool in
            guard state.members[id] != nil, state.bytes[id] != bytes else { return false }
            state.bytes[id] = bytes
            return state.queueProgress()
        }
        if deliver { deliverProgress() }
    }

    /// Drains the queued progress to the handler, outside the lock, until none is left; only
    /// the thread that found nobody delivering calls it.
    private func deliverProgress() {
        while true {
            let (batch, handler) = state.withLock { state -> ([GroupProgress], (@Sendable (GroupProgress) -> Void)?) in
                let batch = state.pendingProgress
                state.pendingProgress = []
                if batch.isEmpty { state.isDelivering = false }
                return (batch, state.onProgress)
            }
            guard !batch.isEmpty else { return }
            if let handler { for progress in batch { handler(progress) } }
        }
    }
}
