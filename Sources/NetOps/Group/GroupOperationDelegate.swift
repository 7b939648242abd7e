import Foundation

/// Receives a group's events: the same information its closures carry.
///
/// The group is passed as a Foundation `Operation` (a `GroupOperation` is generic over its
/// result); cast it back to read its result. Every method has a default that does nothing.
/// Methods are called outside the group's lock; a group's progress updates come one at a time,
/// in the order they happened.
public protocol GroupOperationDelegate: AnyObject, Sendable {
    /// A sub-operation started, moved bytes or ended; `progress` is the group's after it.
    func groupOperation(_ group: Operation, didUpdate progress: GroupProgress)
    /// The group reached a final state (after its completion closures ran).
    func groupOperationDidFinish(_ group: Operation)
}

extension GroupOperationDelegate {
    /// Does nothing.
    public func groupOperation(_ group: Operation, didUpdate progress: GroupProgress) {}
    /// Does nothing.
    public func groupOperationDidFinish(_ group: Operation) {}
}
