import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One stage every request of an operation passes through on its way out, and every answer on
/// its way back: where credentials are placed, 401s park the operation, failures are retried,
/// responses are checked and attempts are recorded, and where a service adds its own step (a
/// header, a rate limit, a verdict of its own).
///
/// Stages form an ordered chain: the session's (`NetworkSession.Options.middleware`), then the
/// layer above's (an API scope's), then the operation's own (`BaseOperation.middleware`).
/// `prepare` runs first to last on each request about to be sent; `judge` runs last to first on
/// each attempt that ended, each stage seeing the verdict of the stages after it and free to
/// replace it. A stage that also answers or wraps the transfer itself (a cache, a coalescer)
/// is a `TransferStage`; stages share per-call data through `CallValues`, and hear the end of
/// the operation, once, in `operationDidFinish`.
///
/// ```swift
/// struct RequestTag: NetworkMiddleware {
///     func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
///         request.setValue("billing", forHTTPHeaderField: "X-Caller")
///         return .proceed
///     }
/// }
/// let session = NetworkSession(options: .init(middleware: [RequestTag()]))
/// ```
///
/// Every method is called outside the operation's lock, on the thread of the event, and may
/// read the operation. A stage that throws fails the operation with what it threw; a stage that
/// never returns holds its thread, and the operation still ends when its `totalTimeout` passes.
/// The chain is fixed when the operation starts: changing a session or a scope later affects
/// only operations started later.
public protocol NetworkMiddleware: Sendable {
    /// Called with each request about to be sent (the first, a retry, a replay); may change it.
    func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision

    /// Called when an attempt ended (a response arrived whole, or the transfer failed), with the
    /// verdict of the stages after this one; may replace it.
    func judge(_ outcome: AttemptOutcome, verdict: inout Verdict, context: MiddlewareContext) throws

    /// Called when `start()` is called (also to resume a suspended operation).
    func operationWillStart(_ operation: BaseOperation)

    /// Called once the operation is parked in `lot` (after a stage decided `.park`, or a caller
    /// called `BaseOperation.postpone(_:)`) and listed there; `lot.take(operation)` tells whether
    /// it still is. A parking that a replay or a cancel ended before it was listed is not told.
    func operationDidPark(_ operation: BaseOperation, in lot: ParkingLot)

    /// Called when a run of the operation is over, whatever ended it: its request was answered
    /// or failed (after `judge`), or it was stopped by a cancel, a suspension, a park or a
    /// deadline. What a stage holds for a request in flight (a slot of a concurrency limit)
    /// is given back here.
    func operationDidStopRunning(_ operation: BaseOperation)

    /// Called once, when the operation reached its final state (succeeded, failed or was
    /// cancelled) and its completion closures ran, before `isFinished` is posted and before
    /// `syncStart()` and `run()` return. What a stage holds for the whole call (a count of
    /// calls in flight, an open span) is given back here. An operation cancelled before it
    /// ever started tells the stages it was given (its own, its interceptor's): its session's
    /// never saw it.
    func operationDidFinish(_ operation: BaseOperation)
}

extension NetworkMiddleware {
    /// Sends the request unchanged.
    public func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision { .proceed }
    /// Keeps the verdict.
    public func judge(_ outcome: AttemptOutcome, verdict: inout Verdict, context: MiddlewareContext) throws {}
    /// Does nothing.
    public func operationWillStart(_ operation: BaseOperation) {}
    /// Does nothing.
    public func operationDidPark(_ operation: BaseOperation, in lot: ParkingLot) {}
    /// Does nothing.
    public func operationDidStopRunning(_ operation: BaseOperation) {}
    /// Does nothing.
    public func operationDidFinish(_ operation: BaseOperation) {}
}

/// What a stage's `prepare` says about the request it saw.
public enum PrepareDecision: Sendable {
    /// Hand the request to the next stage (and, after the last, to the engine).
    case proceed
    /// Do not send it now: park the operation in this lot until someone replays it.
    case park(in: ParkingLot)
    /// Do not send it: end the operation with this error. A `NetOpsError` is the operation's
    /// error as it is; any other error travels as the underlying error of a `.rejected` one.
    case fail(any Error & Sendable)
}

/// What should become of an attempt that ended.
public enum Verdict: Sendable {
    /// The operation succeeded with this response.
    case accept
    /// Send the request again after this many seconds.
    case retry(after: TimeInterval)
    /// Park the operation in this lot; its request is sent again when it is replayed.
    case park(in: ParkingLot)
    /// End the operation with this error (see `PrepareDecision.fail`).
    case fail(any Error & Sendable)

    /// The error of a `.fail` verdict, nil for the others.
    public var failure: (any Error & Sendable)? {
        if case let .fail(error) = self { return error }
        return nil
    }

    /// True for `.accept`.
    public var isAccept: Bool {
        if case .accept = self { return true }
        return false
    }
}

/// Where a stage is called from: the operation and its attempt.
public struct MiddlewareContext: Sendable {
    /// The operation the request belongs to.
    public let operation: BaseOperation
    /// The number of the attempt: 1 for the first request the operation sends; retries and
    /// replays count on.
    public let attempt: Int
    /// The session the operation runs in.
    public let session: NetworkSession

    /// The values the operation's stages share (`CallValues`).
    public var values: CallValues { operation.values }
}

/// How one attempt of an operation ended, as the stages judge it.
public struct AttemptOutcome: Sendable {
    /// The request as it went to the engine.
    public let request: URLRequest
    /// The response head, when one arrived (read through `statusCode`, `url`, `value(forHTTPHeaderField:)`).
    let head: ResponseHead?
    /// The response body held in memory (empty for an operation whose body goes to a file).
    public let body: Data
    /// The operation's own reading of the transfer: a transport failure, a truncated body or a
    /// status it does not accept; nil for an accepted answer.
    public let error: NetOpsError?
    /// Request body bytes sent.
    public let bytesSent: Int64
    /// Response body bytes received in this attempt.
    public let bytesReceived: Int64
    /// Seconds the operation waited between attempts so far.
    public let retryWaited: TimeInterval
    /// Whether the request may be sent again (`BaseOperation.isReplayable`).
    public let isReplayable: Bool

    /// The status of the response, when one arrived.
    public var statusCode: Int? { head?.statusCode }

    /// The URL the response came from (the last one after redirects), when one arrived.
    public var url: URL? { head?.url }

    /// The HTTP version the response came over as OpenTelemetry's `network.protocol.version`
    /// writes it (`1.1`, `2`); nil without a response, or when the engine does not say (the
    /// URLSession engine: FoundationNetworking does not tell what libcurl negotiated).
    public var networkProtocolVersion: String? { head?.protocolVersion }

    /// The value of the response's header field `name` (any case; repeated fields joined with
    /// ", "), when a response arrived and has it.
    public func value(forHTTPHeaderField name: String) -> String? {
        head?.value(forHTTPHeaderField: name)
    }

    /// The response as an `HTTPURLResponse`. Made the first time a stage asks (then kept): it
    /// costs a tenth of a small request, so a stage that needs only the status or a header
    /// reads `statusCode` or `value(forHTTPHeaderField:)`.
    public var response: HTTPURLResponse? { head?.httpURLResponse }
}
