import Foundation

/// What a `GroupOperation` does when one of its sub-operations fails.
///
/// A sub-operation "fails" when it ends `.failedFinished` (a transport error, an unaccepted
/// status, a timeout), or, for a nested group, when that group ends `.failedFinished`. A
/// sub-operation that ends `.cancelled` is not a failure by itself: the body sees it (an awaited
/// `run()` throws, a `syncStart()` returns it cancelled) and decides.
public enum GroupFailurePolicy: Sendable, Equatable {
    /// The first failing sub-operation fails the group (the default): every other sub-operation
    /// still running is cancelled, the body is asked to stop (`GroupContext.isCancelled` becomes
    /// true), and when it returns the group ends `.failedFinished` with that sub-operation's error,
    /// whatever the body returned.
    case failFast
    /// Failures are only recorded, in `GroupContext.failures` (and the group's `failures`): the
    /// body decides what they mean and what the group's result is.
    case collectPartialResults
}

/// One sub-operation of a group that failed, with its error.
public struct GroupFailure: Sendable, CustomStringConvertible {
    /// The operation that failed (a `BaseOperation` or a nested `GroupOperation`).
    public let operation: Operation
    /// Why it failed.
    public let error: any Error

    /// A failure of `operation` because of `error`.
    public init(operation: Operation, error: any Error) {
        self.operation = operation
        self.error = error
    }

    /// One line naming the error.
    public var description: String { "sub-operation failed: \(error)" }
}

/// Why a group ended without its own result, when no sub-operation's error says it better.
public enum GroupError: Error, Sendable, CustomStringConvertible {
    /// The group was cancelled (or asked whether it was, through `checkCancellation()`).
    case cancelled
    /// Every sub-operation of a tolerant combination failed; the failures in the order of the
    /// operations.
    case allFailed([GroupFailure])

    /// One readable line.
    public var description: String {
        switch self {
        case .cancelled: return "group operation cancelled"
        case let .allFailed(failures):
            let first = failures.first.map { ": first: \($0.error)" } ?? ""
            return "all \(failures.count) sub-operations failed\(first)"
        }
    }
}
