import Foundation

/// A value guarded by its own lock, in the style of swift-nio's `NIOLockedValueBox`.
///
/// The value is reachable only inside `withLock`, so no code path can touch it unlocked.
/// The body must not call out to code that could take another lock of the same store.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
