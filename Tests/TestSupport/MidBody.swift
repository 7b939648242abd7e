import Foundation
import NetOps

/// Runs `action` once, on the thread that delivers the bytes, the first time every operation of
/// `operations` has received at least `bytes` of its body; the box it returns holds what
/// `action` returned, once it ran.
///
/// A test that suspends or cancels mid-body acts here rather than after polling the progress
/// from its own task: on a loaded machine that task can run seconds late, and a body paced to
/// last a second or two has ended by then. The server answers on threads of its own
/// (`DemoServerThreads`), so nothing else slows it down with the test.
@discardableResult
package func whenBodies<Result: Sendable>(
    of operations: [BaseOperation], reach bytes: Int64, _ action: @escaping @Sendable () -> Result
) -> Locked<Result?> {
    let result = Locked<Result?>(nil)
    let reached = Locked(Set<ObjectIdentifier>())
    let count = operations.count
    for operation in operations {
        let id = ObjectIdentifier(operation)
        operation.onProgress { _, progress in
            guard progress.bytesReceived >= bytes else { return }
            let fire = reached.withLock { seen -> Bool in
                guard seen.count < count, !seen.contains(id) else { return false }
                seen.insert(id)
                return seen.count == count
            }
            guard fire else { return }
            let value = action()
            result.withLock { $0 = value }
        }
    }
    return result
}

/// Suspends `operation` at each of `thresholds` bytes of its body (in increasing order), once
/// each, on the thread that delivers the bytes (see `whenBodies(of:reach:_:)`).
public func suspend(_ operation: BaseOperation, atBytes thresholds: [Int64]) {
    for threshold in thresholds {
        whenBodies(of: [operation], reach: threshold) { [weak operation] in _ = operation?.suspend() }
    }
}
