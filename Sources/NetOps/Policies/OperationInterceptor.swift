import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Hooks that prepare each request of an operation and judge each response: the older shape of
/// a stage, kept so that code written against it still builds. It runs through an adapter that
/// translates its decisions into the chain's (`PrepareDecision`, `Verdict`); new code writes a
/// `NetworkMiddleware`, which can park in a lot of its own, see every attempt and hear the end.
///
/// Every method is called outside the operation's lock, on an internal thread, and may read
/// the operation (`values`, `request`, …). Each has a default that changes nothing.
@available(*, deprecated, message: "write a NetworkMiddleware: prepare returns a PrepareDecision, judge sets a Verdict")
public protocol OperationInterceptor: Sendable {
    /// Called before every transfer (the first, a retry, a replay) with the request about to go.
    func adapt(_ request: URLRequest, for operation: BaseOperation) -> RequestDecision

    /// Called when a response arrived whole, before the operation judges its status.
    func judge(_ response: HTTPURLResponse, body: Data, for operation: BaseOperation) -> ResponseDecision

    /// Called when the operation parked itself; `BaseOperation.take(_:)` tells whether it is still parked.
    func didPostpone(_ operation: BaseOperation)
}

@available(*, deprecated)
extension OperationInterceptor {
    /// Sends the request unchanged.
    public func adapt(_ request: URLRequest, for operation: BaseOperation) -> RequestDecision { .proceed(request) }
    /// Leaves the verdict to the operation.
    public func judge(_ response: HTTPURLResponse, body: Data, for operation: BaseOperation) -> ResponseDecision { .useDefault }
    /// Does nothing.
    public func didPostpone(_ operation: BaseOperation) {}
}

/// What to do with a request about to be sent.
@available(*, deprecated, message: "a NetworkMiddleware's prepare returns a PrepareDecision")
public enum RequestDecision: Sendable {
    /// Send this request.
    case proceed(URLRequest)
    /// Do not send it now: park the operation in its session's lot (it waits for the session's
    /// `performPostponedOperations`).
    case postpone
    /// Do not send it: end the operation with this error.
    case fail(NetOpsError)
}

/// What to do with a response that arrived.
@available(*, deprecated, message: "a NetworkMiddleware's judge sets a Verdict")
public enum ResponseDecision: Sendable {
    /// Let the operation judge (status codes, then its retry policy).
    case useDefault
    /// Park the operation in its session's lot; its request is sent again when it is replayed.
    case postpone
    /// Send the request again after this many seconds (counts against the retry policy's limits).
    case retry(after: TimeInterval)
    /// End the operation with this error.
    case fail(NetOpsError)
}
