import Foundation

extension BaseOperation {
    /// The object this operation works for (held weakly), e.g. a connection handler that may go
    /// away; cancel its operations with `cancelAllOperations(ownedBy:in:)`, also from the
    /// owner's `deinit`.
    public var owner: AnyObject? {
        get { withLock { storage.ownership.owner } }
        set {
            changeOwnership {
                $0.owner = newValue
                $0.ownerIdentifier = newValue.map(ObjectIdentifier.init)
            }
        }
    }

    /// A name of what this operation works for, e.g. a request ID; cancel its operations with
    /// `cancelAllOperations(ownerID:in:)`.
    public var ownerID: String? {
        get { withLock { storage.ownership.ownerID } }
        set { changeOwnership { $0.ownerID = newValue } }
    }

    /// Cancels every operation and group in `queue` (waiting or running) whose `owner` is
    /// `owner` itself (identity, not equality). Without a queue: every operation and group
    /// started and not yet ended. A group cancelled this way cancels everything its body runs.
    ///
    /// Works from the owner's own `deinit`, the usual place to call it:
    ///
    /// ```swift
    /// deinit { BaseOperation.cancelAllOperations(ownedBy: self) }
    /// ```
    ///
    /// - Returns: how many operations and groups were cancelled (a group counts as one).
    @discardableResult
    public static func cancelAllOperations(ownedBy owner: AnyObject, in queue: OperationQueue? = nil) -> Int {
        let match = OwnerMatch(owner)
        return cancel(in: queue) { $0.isOwned(by: match) }
    }

    /// Cancels every operation and group in `queue` (waiting or running) whose `ownerID` equals
    /// `ownerID`. Without a queue: every operation and group started and not yet ended. A group
    /// cancelled this way cancels everything its body runs.
    ///
    /// - Returns: how many operations and groups were cancelled (a group counts as one).
    @discardableResult
    public static func cancelAllOperations(ownerID: String, in queue: OperationQueue? = nil) -> Int {
        cancel(in: queue) { $0.ownerID == ownerID }
    }

    /// Changes the owner or owner ID; a running operation that now has one is listed for owners.
    private func changeOwnership(_ change: (inout Ownership) -> Void) {
        let list = withLock { () -> Bool in
            change(&storage.ownership)
            return machine.isExecuting && listIfOwnedLocked()
        }
        if list { listForOwners() }
    }

    /// Decides to list the operation for owners: true (once) when it has an owner or an owner
    /// ID and is not listed yet; the caller then calls `listForOwners()` outside the lock.
    /// Operations without an owner are never listed, so they never take the registry's lock.
    /// Call with the lock held.
    func listIfOwnedLocked() -> Bool {
        guard !storage.ownership.isListed, storage.ownership.hasOwner else { return false }
        storage.ownership.isListed = true
        return true
    }

    /// Lists the operation for owners, until it ends (at once unlisted if it already has).
    func listForOwners() {
        OperationRegistry.track(self) { withLock { machine.state.isFinishedOrCancelled } }
    }

    /// Whether this operation works for the owner `match` describes.
    func isOwned(by match: OwnerMatch) -> Bool {
        withLock { match.matches(storage.ownership.owner, identifier: storage.ownership.ownerIdentifier) }
    }

    private static func cancel(in queue: OperationQueue?, where matches: (any OwnedOperation) -> Bool) -> Int {
        let candidates = queue.map { $0.operations.compactMap { $0 as? any OwnedOperation } } ?? OperationRegistry.activeOperations()
        var cancelled = 0
        for operation in candidates where matches(operation) && !operation.isFinishedOrCancelled {
            operation.cancel()
            cancelled += 1
        }
        return cancelled
    }
}
