import Foundation

/// A value with its own lock: the only way to reach the value is inside `withLock`.
///
/// The package's mutable shared state lives in these boxes (or behind an operation's own lock),
/// so every access is visibly guarded. Never call out to user code inside `withLock`.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// A box holding `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    @discardableResult
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
