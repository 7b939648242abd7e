import NIOConcurrencyHelpers

/// A value with its own lock: the only way to reach the value is inside `withLock`.
///
/// The package's mutable shared state lives in these boxes (or behind an operation's own lock),
/// so every access is visibly guarded. Never call out to user code inside `withLock`.
///
/// A copy shares the value and the lock with the original. Both live in one allocation, the
/// mutex beside the value (`NIOLockedValueBox`): an `NSLock` was an object of its own with its
/// mutex allocated apart, three allocations and a class method call per hold, for every
/// response head, operation and transfer.
package struct Locked<Value>: @unchecked Sendable {
    private let box: NIOLockedValueBox<Value>

    /// A box holding `value`.
    package init(_ value: Value) {
        box = NIOLockedValueBox(value)
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    @discardableResult
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try box.withLockedValue(body)
    }
}
