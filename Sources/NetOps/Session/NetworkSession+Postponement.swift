import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkSession {
    /// The operations parked in this session's lot, first parked first: those parked by
    /// `BaseOperation.postpone(_:)` and by their own interceptor. (An API's authentication
    /// coordinator parks its operations in a lot of its own.)
    public var postponedOperations: [BaseOperation] {
        parkingLot.operations
    }

    /// Replays every operation parked in this session's lot, first parked first: each request is
    /// rebuilt through the modification it was postponed with, else `update` (for example to
    /// put a fresh token in), then through the operation's chain, and sent again. The
    /// successors of operations postponed after they ended start, in `queue` when one is given.
    ///
    /// - Returns: the operations replayed.
    @discardableResult
    public func performPostponedOperations(
        on queue: OperationQueue? = nil, update: (@Sendable (inout URLRequest) -> Void)? = nil
    ) -> [BaseOperation] {
        parkingLot.replayAll(on: queue, update: update)
    }

    /// Ends every operation parked in this session's lot with `error` (`.failedFinished`),
    /// first parked first, on the calling thread.
    ///
    /// - Returns: the operations ended.
    @discardableResult
    public func removeAllPostponedOperations(failingWith error: NetOpsError) -> [BaseOperation] {
        parkingLot.failAll(with: error)
    }

    /// Releases everything that waits on an operation parked in this session's lot, for good:
    /// each ends `.failedFinished` with `.authenticationFailed` ("parked operations released"),
    /// first parked first, so each thread blocked in its `syncStart()` and each `run()` awaiting
    /// it returns. Nothing is replayed; a service calls this when it gives up (a logout, a
    /// shutdown).
    ///
    /// - Returns: the operations ended.
    @discardableResult
    public func releaseSyncWaitersOfPostponed() -> [BaseOperation] {
        removeAllPostponedOperations(failingWith: NetOpsError(.authenticationFailed(reason: "parked operations released"), url: nil))
    }
}
