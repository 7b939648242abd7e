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
}

extension BaseOperation: GroupMember {
    var memberOutcome: (state: OperationState, error: (any Error)?) {
        withLock { (machine.state, storage.error) }
    }

    var memberOperation: Operation { self }
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
///   member leaves the set under the lock, so its failure is recorded once.
package final class GroupScope: Sendable {
    /// The scope of the group whose body is running on this task or thread, if any.
    @TaskLocal package static var current: GroupScope?

    private struct State {
        var members: [ObjectIdentifier: any GroupMember] = [:]
        var failures: [GroupFailure] = []
        var isCancelled = false
        var onFailure: (@Sendable (GroupFailure) -> Void)?
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

    /// True once the scope was cancelled: members are cancelled, new ones cancelled at once.
    var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// The failures recorded so far, in the order they were noticed.
    var failures: [GroupFailure] {
        settle()
        return state.withLock { $0.failures }
    }

    /// The members still running.
    var memberCount: Int { state.withLock { $0.members.count } }

    private enum Decision { case cancel, watch, nothing }

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
            return .watch
        }
        switch decision {
        case .cancel:
            member.cancel()
        case .watch:
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
        let failure = outcome.state == .failedFinished
            ? GroupFailure(operation: member.memberOperation, error: outcome.error ?? GroupError.cancelled)
            : nil
        let report = state.withLock { state -> (@Sendable (GroupFailure) -> Void)? in
            guard state.members.removeValue(forKey: id) != nil, let failure else { return nil }
            state.failures.append(failure)
            return state.onFailure
        }
        if let report, let failure { report(failure) }
    }
}
