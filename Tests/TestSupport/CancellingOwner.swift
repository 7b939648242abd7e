import Foundation
import NetOps

/// An owner that cancels its operations from its `deinit`, as a screen or a connection handler
/// does when it goes away, and notes how many `cancelAllOperations(ownedBy:in:)` cancelled.
package final class CancellingOwner {
    /// Set by `deinit`: how many operations and groups were cancelled.
    package let cancelled: Locked<Int?>
    /// The queue to cancel in; nil: every operation started and not yet ended.
    package let queue: OperationQueue?

    /// An owner that reports into `cancelled` and cancels in `queue`.
    package init(cancelled: Locked<Int?>, queue: OperationQueue? = nil) {
        self.cancelled = cancelled
        self.queue = queue
    }

    deinit {
        let count = BaseOperation.cancelAllOperations(ownedBy: self, in: queue)
        cancelled.withLock { $0 = count }
    }
}
