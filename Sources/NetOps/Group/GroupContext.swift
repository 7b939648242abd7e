import Foundation

/// What a group's body receives: whether the group was cancelled, the failures so far, and
/// helpers that run sub-operations and throw when they do not succeed.
///
/// Any `BaseOperation` or `GroupOperation` the body starts — with these helpers, or directly with
/// `syncStart()`, `run()` or `start()` — belongs to the group: cancelling the group cancels it.
/// Operations a body hands to an `OperationQueue` are started by the queue's threads, outside the
/// body, and do not belong to it.
///
/// ```swift
/// let wall = GO<[Post]>(sync: { context in
///     let me = try context.syncRun(DTO.get(base.appendingPathComponent("users.get")))
///     let user = try me.decode(User.self)
///     try context.checkCancellation()
///     let posts = DTO.get(base.appendingPathComponent("wall.get"), parameters: ["owner": user.id])
///     return try context.syncRun(posts).decode([Post].self)
/// })
/// ```
public final class GroupContext: Sendable {
    /// The scope whose members are this group's sub-operations.
    let scope: GroupScope

    /// The failure policy of the group.
    public let policy: GroupFailurePolicy

    init(scope: GroupScope, policy: GroupFailurePolicy) {
        self.scope = scope
        self.policy = policy
    }

    /// True once the group was cancelled, or (with `.failFast`) a sub-operation failed: the body
    /// should stop; whatever it returns is ignored.
    public var isCancelled: Bool { scope.isCancelled }

    /// Throws `GroupError.cancelled` when `isCancelled` is true.
    public func checkCancellation() throws {
        if isCancelled { throw GroupError.cancelled }
    }

    /// The sub-operations that ended `.failedFinished` so far, in the order they were noticed.
    ///
    /// Up to date when read: an operation that just failed in a `syncStart()` is listed.
    public var failures: [GroupFailure] { scope.failures }

    // MARK: Running sub-operations

    /// Starts `operation`, waits for it without blocking a thread, and returns it when it
    /// succeeded.
    ///
    /// - Throws: the operation's `NetOpsError` when it failed or was cancelled. With
    ///   `.collectPartialResults` the failure is also recorded in `failures`.
    @discardableResult
    public func run<Operation: BaseOperation>(_ operation: Operation) async throws -> Operation {
        try await operation.run()
    }

    /// Starts a nested group, waits for it without blocking a thread, and returns its result.
    ///
    /// - Throws: the nested group's error when it failed or was cancelled.
    @discardableResult
    public func run<Nested: Sendable>(_ group: GroupOperation<Nested>) async throws -> Nested {
        try await group.run()
    }

    /// Starts `operation`, blocks the calling thread until it ends, and returns it when it
    /// succeeded. For sync bodies (never on a Swift-concurrency thread).
    ///
    /// - Throws: the operation's `NetOpsError` when it failed or was cancelled.
    @discardableResult
    public func syncRun<Operation: BaseOperation>(_ operation: Operation) throws -> Operation {
        operation.syncStart()
        if operation.state != .successFinished {
            throw operation.error ?? NetOpsError(.cancelled, url: nil)
        }
        return operation
    }

    /// Starts a nested group, blocks the calling thread until it ends, and returns its result.
    /// For sync bodies (never on a Swift-concurrency thread).
    ///
    /// - Throws: the nested group's error when it failed or was cancelled.
    @discardableResult
    public func syncRun<Nested: Sendable>(_ group: GroupOperation<Nested>) throws -> Nested {
        try group.syncStart().outcome()
    }
}
