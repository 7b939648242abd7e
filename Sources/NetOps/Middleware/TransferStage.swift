import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A stage that takes part in the transfer itself: it answers a request from somewhere else (a
/// cache, a local store), or wraps the transfer below it (watching or changing what comes back,
/// sending the request again), besides what every `NetworkMiddleware` may do.
///
/// After every stage prepared the request and it passed the check of what goes on the wire,
/// the operation hands it to its transfer stages, outermost first, each wrapped around the
/// ones after it and the engine innermost. Every such stage in the chain takes part: two caches
/// are two layers. A stage either
/// - answers: it reports a response head, the body and the end to `events` (at once or later)
///   and returns a handle that stops its answer; nothing is sent;
/// - or hands the request on with `next` (changed, if it likes), passing `events` or a
///   receiver of its own that sees what the transfer below reports before passing it on.
///
/// ```swift
/// /// Answers GETs of the URLs it holds from memory; everything else goes on.
/// struct LocalStore: TransferStage {
///     let answers: [URL: Data]
///
///     func startTransfer(
///         _ request: URLRequest, context: TransferContext, events: any TransferEvents, next: TransferNext
///     ) throws -> any TransferHandle {
///         guard request.httpMethod == "GET", let url = request.url, let body = answers[url] else {
///             return next(request, events: events)
///         }
///         events.transferDidReceive(head: ResponseHead(url: url, statusCode: 200, httpVersion: "HTTP/1.1", fields: []))
///         events.transferDidReceive(data: body)
///         events.transferDidComplete(failure: nil)
///         return AnsweredLocally()
///     }
/// }
/// ```
///
/// Rules the operation holds a stage to (`TransferStageMisuse`):
/// - `next` starts one transfer at a time: called again while the transfer it started is still
///   running, it starts nothing and the operation ends with a `.rejected` error naming the
///   stage. (Asking again after that transfer ended, as a cache does when a revalidation
///   answers with something it cannot use, is fine.) Called once the end reached the
///   operation, the attempt is over: it starts nothing and reports `.cancelled` at once.
/// - A stage that throws ends the operation with what it threw (a `NetOpsError` as it is, any
///   other error as the `underlying` of a `.rejected` one), after stopping what it started.
///   Neither is retried: the stage would do the same again.
/// - A stage that keeps the request without answering or handing it on holds it until the
///   operation's idle timeout, whose error names the stage.
///
/// `startTransfer` is called outside the operation's lock, on the thread that starts the
/// transfer; the events may arrive on an event loop every transfer shares: do nothing slow
/// there. A streamed body (`StreamingOperation`) has one reader: a stage that stores or shares
/// bodies hands such a request on untouched (`TransferContext.isStreamed`).
public protocol TransferStage: NetworkMiddleware {
    /// Starts the transfer of `request`: answers it through `events`, or hands it on with `next`.
    ///
    /// - Parameters:
    ///   - request: The request as it goes: prepared by every stage, checked, cookies added.
    ///   - context: The operation, its attempt, body and call values.
    ///   - events: Where the transfer's events go (the operation, or the stage outside this one).
    ///   - next: Starts the transfer below this stage (the next stage, or the engine).
    /// - Returns: What stops the transfer: the handle `next` returned, or one of the stage's own.
    /// - Throws: Anything; the operation then ends with it (see above).
    func startTransfer(_ request: URLRequest, context: TransferContext, events: any TransferEvents, next: TransferNext) throws
        -> any TransferHandle
}

/// Where a `TransferStage` is called from: the operation, its attempt, the request's body and
/// the values the call's stages share.
public struct TransferContext: Sendable {
    /// The operation the request belongs to.
    public let operation: BaseOperation
    /// The number of the attempt (1 for the first request; retries and replays count on).
    public let attempt: Int
    /// The session the operation runs in.
    public let session: NetworkSession
    /// The request's body (`.none` when it has none or it is in the request).
    public let body: TransferBody
    /// The operation's side of the transfer: where its body goes, its redirect rules, TLS and
    /// proxy.
    package let attemptEvents: any EngineEvents

    /// The values the operation's stages share (`CallValues`).
    public var values: CallValues { operation.values }

    /// True when the response body goes to a file (a download), not to memory.
    public var bodyGoesToFile: Bool { attemptEvents.bodyGoesToFile }

    /// True when the response body goes to one reader as it arrives (`StreamingOperation`).
    public var isStreamed: Bool { attemptEvents.bodyDemand != nil }

    /// True when the engine follows redirects for this request.
    public var followsRedirects: Bool { attemptEvents.redirectRules.follows }

    /// What redirects of the transfer may do and carry.
    package var redirectRules: RedirectRules { attemptEvents.redirectRules }

    /// The transfer's own TLS settings, HTTP/2 switch and proxy.
    package var transport: TransportChoice { attemptEvents.transport }

    /// Who a request to `url` is to the servers beyond its fields: the engine, the TLS client
    /// certificate and trust it uses, the proxy (`TransferEngine.transportIdentity`).
    package func transportIdentity(for url: URL?) -> String {
        session.engine.transportIdentity(for: transport, url: url)
    }
}

/// Starts the transfer below a `TransferStage`: the next stage's, or the engine's.
///
/// Call it as a function, `next(request, events: receiver)`, at most once at a time (see
/// `TransferStage`).
public struct TransferNext: Sendable {
    let run: StagedTransfer
    /// The index of the stage this starts (the engine when past the last).
    let index: Int

    /// Starts the transfer of `request` below the stage, reporting its events to `events`.
    ///
    /// - Returns: What stops that transfer.
    public func callAsFunction(_ request: URLRequest, events: any TransferEvents) -> any TransferHandle {
        run.passOn(request, events: events, to: index)
    }
}

/// How a `TransferStage` broke the rules the operation holds it to: what the operation's error
/// carries as its `underlying` error.
public struct TransferStageMisuse: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the stage did.
    public enum Problem: String, Sendable {
        /// It called `next` again while the transfer it started was still running.
        case handedOnTwice
        /// It neither answered the request nor handed it on before the idle timeout.
        case keptRequest
    }

    /// The stage's type name.
    public let stage: String
    /// What it did.
    public let problem: Problem

    /// The misuse `problem` of the stage whose type name is `stage`.
    public init(stage: String, problem: Problem) {
        self.stage = stage
        self.problem = problem
    }

    /// One line naming the stage.
    public var description: String {
        switch problem {
        case .handedOnTwice:
            "the transfer stage \(stage) handed the request on again while the transfer it started was still running"
        case .keptRequest:
            "the request was last with the transfer stage \(stage), which had neither answered it nor handed it on"
        }
    }
}
