import Dispatch
import Foundation

/// Short name of `GroupOperation`, e.g. `GO<[User]>`.
public typealias GO<Result: Sendable> = GroupOperation<Result>

/// An operation whose body runs other network operations one after another (or side by side)
/// and produces a typed `result`: no callback nesting, and one `cancel()` for all of it.
///
/// The body is written as straight-line code, either synchronous — it runs on a thread of its
/// own, so `syncStart()` of inner operations is allowed — or `async`, with `try await`:
///
/// ```swift
/// let average = GO<Double>(sync: { context in
///     let subjects = try context.syncRun(DTO.get(base.appendingPathComponent("subjects")))
///         .decode([Subject].self)
///     var grades: [Double] = []
///     for subject in subjects {
///         let marks = try context.syncRun(DTO.get(base.appendingPathComponent("marks/\(subject.id)")))
///         grades += try marks.decode([Double].self)
///     }
///     return grades.reduce(0, +) / Double(max(grades.count, 1))
/// })
/// queue.addOperation(average)                      // or: try await average.run()
/// ```
///
/// Every `BaseOperation` and nested `GroupOperation` started while the body runs — by
/// `syncStart()`, `run()`, `start()` or the `GroupContext` helpers, also from child tasks of an
/// async body — belongs to the group. Cancelling the group cancels each of them that is still
/// running, and every nested group with its own operations, at once; operations the body starts
/// afterwards are cancelled as they start. No cancellation code is needed in the body (it may
/// check `context.isCancelled` between steps to stop early).
///
/// A group is a Foundation `Operation` (asynchronous): it works in any `OperationQueue`, with
/// dependencies, and ends in one of the states of `OperationState`; `suspend()` pauses every
/// sub-operation it is running, `resume()` continues them. What a failing sub-operation does to the group is its `GroupFailurePolicy`. Groups nest
/// without limit.
public final class GroupOperation<Result: Sendable>: Operation, @unchecked Sendable {
    // @unchecked: every mutable property lives in `storage`, a `Locked` box; the rest is
    // immutable. KVO notifications and user closures are always made outside the lock.

    /// The two kinds of body.
    enum Body: Sendable {
        case async(@Sendable (GroupContext) async throws -> Result)
        case sync(@Sendable (GroupContext) throws -> Result)
    }

    /// A group's machine: a run carries nothing (the body is the group's one run), its end the
    /// error the group failed with.
    typealias Machine = OperationStateMachine<GroupRun, any Error>

    /// A group's run: it carries nothing, and there is only ever the one.
    struct GroupRun: MachineRun {
        var number: UInt64 { 0 }
    }

    /// The mutable part of a group.
    struct Storage {
        var machine = Machine()
        var body: Body?
        var result: Result?
        var firstFailure: GroupFailure?
        var task: Task<Void, Never>?
        var completionHandlers: [@Sendable (GroupOperation<Result>) -> Void] = []
        var progressHandlers: [@Sendable (GroupOperation<Result>, GroupProgress) -> Void] = []
        var finalWaiters: [@Sendable () -> Void] = []
        /// The end took the completion closures: one added later runs at once.
        var completionsTaken = false
        /// The end released the waiters: one added later runs at once.
        var waitersReleased = false
        weak var delegate: (any GroupOperationDelegate)?
        weak var owner: AnyObject?
        /// The identity of `owner` when it was set: still there while the owner deinitializes.
        var ownerIdentifier: ObjectIdentifier?
        var ownerID: String?
        /// What `isFinished` answers: the machine's value as of the last `isFinished`
        /// notification (see `OperationLifecycle`).
        var postedFinished = false
    }

    let storage: Locked<Storage>
    /// The operations started by the body.
    let scope = GroupScope()

    /// What a failing sub-operation does to this group.
    public let policy: GroupFailurePolicy

    /// A group whose `async` body runs in a `Task` of its own when the group starts.
    ///
    /// ```swift
    /// let both = GO<(Data, Data)> { context in
    ///     async let user = context.run(DTO.get(userURL))
    ///     async let wall = context.run(DTO.get(wallURL))
    ///     return try await (user.receivedData, wall.receivedData)
    /// }
    /// let (user, wall) = try await both.run()
    /// ```
    ///
    /// - Parameters:
    ///   - policy: what a failing sub-operation does; `.failFast` by default.
    ///   - body: the work; its return value is the group's `result`, an error it throws the
    ///     group's `error`. Never call `syncStart()` in it: use `await` (`run()`).
    public init(
        policy: GroupFailurePolicy = .failFast,
        _ body: @escaping @Sendable (GroupContext) async throws -> Result
    ) {
        self.policy = policy
        storage = Locked(Storage(body: .async(body)))
        super.init()
        wireScope()
    }

    /// A group whose synchronous body runs on a `Thread` of its own when the group starts, so
    /// it may block on `syncStart()` of inner operations.
    ///
    /// - Parameters:
    ///   - policy: what a failing sub-operation does; `.failFast` by default.
    ///   - body: the work; its return value is the group's `result`, an error it throws the
    ///     group's `error`. Operations it hands to other threads do not belong to the group.
    public init(
        policy: GroupFailurePolicy = .failFast,
        sync body: @escaping @Sendable (GroupContext) throws -> Result
    ) {
        self.policy = policy
        storage = Locked(Storage(body: .sync(body)))
        super.init()
        wireScope()
    }

    private func wireScope() {
        scope.onFailure { [weak self] failure in self?.childFailed(failure) }
        scope.onProgress { [weak self] progress in self?.reportProgress(progress) }
    }

    // MARK: Operation

    /// Always true: the body runs on its own task or thread, not on the caller's.
    public override var isAsynchronous: Bool { true }

    /// True while the body runs.
    public override var isExecuting: Bool { storage.withLock { $0.machine.isExecuting } }

    /// True once the group ended and `start()` has run (a queue always calls it).
    public override var isFinished: Bool { storage.withLock { $0.postedFinished } }

    /// Starts the body. A queue calls this for you; a group cancelled before it started
    /// finishes at once without running its body. Starting a started group does nothing.
    public override func start() {
        let parent = GroupScope.current
        parent?.adopt(self)
        let (before, after, body) = storage.withLock { storage -> (LifecycleSnapshot, LifecycleSnapshot, Body?) in
            let before = storage.machine.snapshot
            // On a suspended group `start()` resumes: the body is already running.
            if before.phase == .suspended { return (before, before, nil) }
            let action = storage.machine.start(GroupRun())
            guard action == .beginTransfer else { return (before, storage.machine.snapshot, nil) }
            return (before, storage.machine.snapshot, storage.body)
        }
        if body != nil {
            // Listed before its body runs, so owners find it from now on (its end unlists it).
            OperationRegistry.track(self) { storage.withLock { $0.machine.state.isFinishedOrCancelled } }
        }
        if before.phase == .suspended {
            resume()
        } else {
            publish(from: before, to: after)
            if let body { launch(body) }
        }
        // Started while the enclosing group is suspended: suspended at once.
        parent?.memberStarted(self)
    }

    /// Cancels the group and everything running inside it: every operation its body started
    /// that is still running, and every nested group, recursively. The group ends `.cancelled`
    /// at once (its completion runs, `error` is `GroupError.cancelled`); its body is asked to
    /// stop and whatever it returns later is ignored. Cancelling a finished group does nothing.
    public override func cancel() {
        super.cancel()
        let (before, after, task) = storage.withLock { storage -> (LifecycleSnapshot, LifecycleSnapshot, Task<Void, Never>?) in
            let before = storage.machine.snapshot
            _ = storage.machine.cancel(GroupError.cancelled)
            // Never started: the body will not run, let go of what it captured.
            if before.phase == .idle { storage.body = nil }
            return (before, storage.machine.snapshot, storage.task)
        }
        guard before.phase != after.phase else { return }
        scope.cancel()
        task?.cancel()
        publish(from: before, to: after)
    }

    // MARK: State and result

    /// Where the group is in its life: `readyToStart`, `working`, then one of the final states.
    public var state: OperationState { storage.withLock { $0.machine.state } }

    /// The state in words, e.g. "working".
    public var stateDescription: String { state.description }

    /// True until the group reaches a final state.
    public var isWorkingOrInProcess: Bool { state.isWorkingOrInProcess }

    /// True once the group succeeded, failed or was cancelled.
    public var isFinishedOrCancelled: Bool { state.isFinishedOrCancelled }

    /// What the body returned, once the group succeeded; nil otherwise.
    public var result: Result? { storage.withLock { $0.result } }

    /// Why the group failed (the body's error, or with `.failFast` the first failing
    /// sub-operation's) or `GroupError.cancelled`; nil while working and after success.
    public var error: (any Error)? { storage.withLock { $0.machine.failure } }

    /// The sub-operations that ended `.failedFinished`, in the order they were noticed.
    public var failures: [GroupFailure] { scope.failures }

    /// Adds a closure called once when the group reaches a final state, before `isFinished` is
    /// posted and before `syncStart()`/`run()` return. Added to a finished group, it runs at once.
    @discardableResult
    public func onCompletion(_ handler: @escaping @Sendable (GroupOperation<Result>) -> Void) -> Self {
        let runNow = storage.withLock { storage -> Bool in
            guard !storage.completionsTaken else { return true }
            storage.completionHandlers.append(handler)
            return false
        }
        if runNow { handler(self) }
        return self
    }

    // MARK: Running

    /// Starts the group and blocks the calling thread until it is final; returns the group.
    ///
    /// Its completions have run when it returns. Never call it on a Swift-concurrency thread
    /// (inside a `Task` or an `async` function): use `run()` there. Call it on a group that is
    /// not in a queue.
    @discardableResult
    public func syncStart() -> Self {
        startAndWait()
        return self
    }

    /// Starts the group, waits for it without blocking a thread, and returns its result.
    ///
    /// Cancelling the calling `Task` cancels the group. Call it on a group that is not in a
    /// queue (for one in a queue, `await group.finished()`).
    ///
    /// - Throws: the group's `error` when it failed or was cancelled.
    @discardableResult
    public func run() async throws -> Result {
        await startAndAwait()
        return try outcome()
    }

    /// Waits until the group is final, whoever starts it.
    public func finished() async {
        await awaitFinal()
    }

    /// The result of a final group, or its error.
    func outcome() throws -> Result {
        try storage.withLock { storage -> Swift.Result<Result, any Error> in
            if storage.machine.state == .successFinished, let result = storage.result { return .success(result) }
            return .failure(storage.machine.failure ?? GroupError.cancelled)
        }.get()
    }

    /// Calls `waiter` once the group is final and its completions ran (at once if it is).
    func whenFinal(_ waiter: @escaping @Sendable () -> Void) {
        let runNow = storage.withLock { storage -> Bool in
            guard !storage.waitersReleased else { return true }
            storage.finalWaiters.append(waiter)
            return false
        }
        if runNow { waiter() }
    }

    // MARK: The body

    /// Runs `body` on its own task or thread, with the group's scope as `GroupScope.current`.
    private func launch(_ body: Body) {
        let context = GroupContext(scope: scope, policy: policy)
        let scope = self.scope
        switch body {
        case let .async(body):
            let task = Task {
                let outcome = await GroupScope.$current.withValue(scope) { () async -> Swift.Result<Result, any Error> in
                    do { return .success(try await body(context)) } catch { return .failure(error) }
                }
                self.bodyEnded(outcome)
            }
            let cancelNow = storage.withLock { storage -> Bool in
                storage.task = task
                return !storage.machine.state.isWorkingOrInProcess || storage.firstFailure != nil
            }
            if cancelNow { task.cancel() }
        case let .sync(body):
            let thread = Thread {
                let outcome = GroupScope.$current.withValue(scope) { () -> Swift.Result<Result, any Error> in
                    do { return .success(try body(context)) } catch { return .failure(error) }
                }
                self.bodyEnded(outcome)
            }
            thread.name = "NetOps.GroupOperation"
            thread.start()
        }
    }

    /// The body returned or threw: the group ends with that, unless it already ended (cancelled)
    /// or a sub-operation failed first under `.failFast`.
    ///
    /// The scope is settled first, and its record of failures read: a member whose end is being
    /// reported on another thread at this very moment is already in it (and counted completed),
    /// even if `childFailed` has not run yet.
    private func bodyEnded(_ outcome: Swift.Result<Result, any Error>) {
        // Members already final count as completed in `progress` before the group ends.
        scope.settle()
        let recorded = policy == .failFast ? scope.failures.first : nil
        let (before, after, wasSuspended) = storage.withLock { storage -> (LifecycleSnapshot, LifecycleSnapshot, Bool) in
            // The body may end while the group is suspended (its operations had ended, or were
            // cancelled): the group ends all the same, and lets go of its members' suspension.
            let wasSuspended = storage.machine.phase == .suspended
            if wasSuspended {
                _ = storage.machine.resume(GroupRun())
                scope.setSuspended(false)
            }
            let before = storage.machine.snapshot
            // A member's failure under `.failFast` wins over what the body returned.
            var error = (storage.firstFailure ?? recorded)?.error
            if error == nil, case let .failure(thrown) = outcome { error = thrown }
            if storage.machine.transferFinished(failure: error) != .none, error == nil, case let .success(result) = outcome {
                storage.result = result
            }
            storage.body = nil
            storage.task = nil
            return (before, storage.machine.snapshot, wasSuspended)
        }
        if wasSuspended { scope.applySuspension() }
        if after.state == .failedFinished { scope.cancel() }
        publish(from: before, to: after)
    }

    /// A sub-operation ended `.failedFinished`: under `.failFast` the first one fails the group.
    private func childFailed(_ failure: GroupFailure) {
        guard policy == .failFast else { return }
        let (first, task) = storage.withLock { storage -> (Bool, Task<Void, Never>?) in
            guard storage.machine.state.isWorkingOrInProcess, storage.firstFailure == nil else { return (false, nil) }
            storage.firstFailure = failure
            return (true, storage.task)
        }
        guard first else { return }
        scope.cancel()
        task?.cancel()
    }

    // MARK: Notifications

    /// Reports a change of the machine, outside the lock, in the order a queue and waiters
    /// need (`OperationLifecycle`).
    private func publish(from before: LifecycleSnapshot, to after: LifecycleSnapshot) {
        let change = LifecycleChange(from: before, to: after)
        publishExecuting(change)
        publishEnd(change)
    }

    func recordPostedFinished() {
        storage.withLock { $0.postedFinished = $0.machine.isFinished }
    }

    /// A group has no chain of its own: its members' stages hear their own ends.
    func tellStagesOfEnd() {}

    /// Runs and drops the completion closures (and drops the progress closures), then tells
    /// the delegate.
    func runCompletions() {
        let (handlers, delegate) = storage.withLock { storage -> ([@Sendable (GroupOperation<Result>) -> Void], (any GroupOperationDelegate)?) in
            defer {
                storage.completionHandlers = []
                storage.completionsTaken = true
                storage.progressHandlers = []
            }
            return (storage.completionHandlers, storage.delegate)
        }
        for handler in handlers { handler(self) }
        delegate?.groupOperationDidFinish(self)
    }

    func releaseFinalWaiters() {
        let waiters = storage.withLock { storage -> [@Sendable () -> Void] in
            defer {
                storage.finalWaiters = []
                storage.waitersReleased = true
            }
            return storage.finalWaiters
        }
        for waiter in waiters { waiter() }
        OperationRegistry.untrack(self)
    }
}

extension GroupOperation: GroupMember {
    var memberOutcome: (state: OperationState, error: (any Error)?) {
        storage.withLock { ($0.machine.state, $0.machine.failure) }
    }

    var memberOperation: Operation { self }

    func observeBytes(_ handler: @escaping @Sendable (TransferProgress) -> Void) {
        storage.withLock { $0.progressHandlers.append { _, progress in handler(progress.bytes) } }
    }
}
