import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Watches an operation's transfers: where the layer above records metrics, spans and request
/// logs without NetOps knowing any of them.
///
/// Every method is called outside the operation's lock, on the thread of the event, and its
/// time is the only delay it adds to the operation. An attempt that is stopped (cancel,
/// suspend, a deadline) reports no `didFinish`: the observer closes it when the next one
/// starts or the operation ends.
package protocol TransferObserver: Sendable {
    /// `start()` was called (also on a suspended operation, to resume it).
    func operationWillStart(_ operation: BaseOperation)
    /// A request is about to go (after the interceptor placed its credential); returns the
    /// request to send, e.g. with a trace context header added.
    func willSend(_ request: URLRequest, attempt: Int, for operation: BaseOperation) -> URLRequest
    /// A transfer ended with a response or a transport failure, before the operation judged it.
    func didFinish(_ report: AttemptReport, for operation: BaseOperation)
    /// The operation parked itself until a fresh credential exists.
    func didPark(_ operation: BaseOperation)
}

/// How one transfer of an operation ended.
package struct AttemptReport: Sendable {
    /// 1 for the first request the operation sent; retries and replays count on.
    package let attempt: Int
    /// The response head, when one arrived.
    package let response: HTTPURLResponse?
    /// The operation's reading of the transfer: a transport failure, a truncated body or an
    /// unaccepted status; nil for an accepted answer.
    package let error: NetOpsError?
    /// Request body bytes sent.
    package let bytesSent: Int64
    /// Response body bytes received in this transfer.
    package let bytesReceived: Int64
}

extension BaseOperation {
    /// The observer of this operation's transfers (APILayer's telemetry).
    package var transferObserver: (any TransferObserver)? {
        get { withLock { storage.settings.observer } }
        set { withLock { storage.settings.observer = newValue } }
    }
}
