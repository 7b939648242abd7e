import AsyncHTTPClient
import Dispatch
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns one AsyncHTTPClient request's callbacks into NetOps transfer events.
///
/// AsyncHTTPClient calls a delegate on the request's event loop only, one call at a time, and
/// waits for the future of a head or body part before it hands over the next part. The response
/// head, body chunks and upload progress are therefore delivered right there, in order; the
/// single completion is handed to a dispatch queue of its own so that what an operation does when
/// it ends (completion handlers, starting queued operations) never runs on an event loop —
/// unless the session's `completionDelivery` is `.eventLoop`, which delivers it right there too.
/// A gzip or deflate body is decoded here (`BodyInflater`) before its chunks are delivered.
///
/// Races the state resolves:
/// - an error reported *while* an event is being delivered (the operation cancels the transfer
///   from inside its own event handler, and AsyncHTTPClient fails the request re-entrantly):
///   the completion waits until that delivery has returned, so events never overlap;
/// - `cancel()` racing the end of the response: whatever arrives first completes the
///   transfer, once; a cancel that was asked for reports `.cancelled` whatever error it caused.
final class NIOTransferDelegate: HTTPClientResponseDelegate {
    typealias Response = Void

    private struct State {
        var expectedUpload: Int64?
        var sent: Int64 = 0
        var visitedURL: URL?
        var connected = false
        var delivering = false
        var pending: TransferFailure??
        var completed = false
        var cancelRequested = false
        /// The decoder of a gzip or deflate body, from its head on.
        var inflater: BodyInflater?
        /// A redirect to follow once this hop's 3xx answer ended (its body is not delivered).
        var followUp: (request: URLRequest, keepsBody: Bool, target: URL)?
        /// AsyncHTTPClient reads no more of the body until this succeeds: the stream's reader
        /// is behind (`BodyDemand`).
        var awaitingReader: EventLoopPromise<Void>?
        /// The loop this hop's request prefers, given back when the hop ends (`LoopBalance`).
        var loopClaim: (balance: LoopBalance, claim: LoopBalance.Claim)?
        /// A response head (of any final status, a redirect's too) arrived: the request was
        /// answered, and is never sent again by the engine.
        var answered = false
    }

    private let events: any EngineEvents
    /// The reader of a streamed body, read once: an operation's sink does not change.
    private let demand: (any BodyDemand)?
    private let requestURL: URL?
    private let method: String
    private let decompressionRatio: Int
    private let completesOnEventLoop: Bool
    /// How to follow a redirect; nil when the engine follows none.
    private let redirects: NIORedirectFollower?
    /// How to send the request once more on another connection, when a kept-alive one is
    /// dropped before a byte of the answer; nil when the request may not be sent twice or was
    /// sent twice already.
    private let resend: NIORedirectFollower?
    /// Told which protocol the origin answered with, for a request that may use HTTP/2.
    private let http2Watch: HTTP2Watch?
    private let state = NIOLockedValueBox(State())

    /// The codings the engine decodes (one at a time, never stacked) and offers in
    /// `Accept-Encoding` when a request names none.
    static let decodableCodings: Set<String> = ["gzip", "deflate"]
    /// The `Accept-Encoding` value the engine offers.
    static let acceptEncoding = "deflate, gzip"

    /// A response body the delegate refused instead of handing it on: in a coding the engine
    /// cannot decode, or encoded and corrupt, cut short or past the decompression limit.
    struct Refused: Error {
        let failure: TransferFailure
    }

    init(
        events: any EngineEvents, url: URL?, method: String = "GET", decompressionRatio: Int = ContentDecoding.ratioLimit,
        completesOnEventLoop: Bool = false, redirects: NIORedirectFollower? = nil, resend: NIORedirectFollower? = nil,
        http2Watch: HTTP2Watch? = nil
    ) {
        self.resend = resend
        self.events = events
        self.demand = events.bodyDemand
        self.requestURL = url
        self.method = method
        self.decompressionRatio = decompressionRatio
        self.completesOnEventLoop = completesOnEventLoop
        self.redirects = redirects
        self.http2Watch = http2Watch
    }

    /// The request has a body of `length` bytes: upload progress is reported against it.
    func expectUpload(_ length: Int64) {
        state.withLockedValue { $0.expectedUpload = length }
    }

    /// Holds `claim` until this hop ends: before the end reaches the operation, so that the
    /// request an awaiting task starts next finds the loop free again.
    func hold(_ claim: LoopBalance.Claim, of balance: LoopBalance) {
        state.withLockedValue { $0.loopClaim = (balance, claim) }
    }

    /// Gives the loop claim back, once.
    private func releaseLoopClaim() {
        let held = state.withLockedValue { state in
            defer { state.loopClaim = nil }
            return state.loopClaim
        }
        if let held { held.balance.release(held.claim) }
    }

    /// Marks that the transfer's owner cancelled it.
    func noteCancelRequested() {
        state.withLockedValue { $0.cancelRequested = true }
        // A part waiting for the reader must not hold the cancelled request.
        if demand != nil { readerCaughtUp() }
    }

    /// Ends a transfer that never reached AsyncHTTPClient.
    func failBeforeStart(_ failure: TransferFailure) {
        // Never on the caller's thread: it is starting the transfer.
        complete(failure, onEventLoop: false)
    }

    // MARK: AsyncHTTPClient callbacks

    func didSendRequestHead(task: HTTPClient.Task<Void>, _ head: HTTPRequestHead) {
        state.withLockedValue { $0.connected = true }
        // AsyncHTTPClient fails a task without telling its delegate when a redirect cannot be
        // followed (a loop, too many) or the request body stream fails after the head went out.
        // Watched from here, on the task's own loop, the future takes the callback in place;
        // watched from the thread that started the request, it cost a task on the loop.
        task.futureResult.whenFailure { [self] error in taskDidFail(error) }
    }

    func didSendRequestPart(task: HTTPClient.Task<Void>, _ part: IOData) {
        let progress = state.withLockedValue { state -> (Int64, Int64?) in
            state.sent += Int64(part.readableBytes)
            return (state.sent, state.expectedUpload)
        }
        deliver { $0.transferDidSend(sent: progress.0, expected: progress.1) }
    }

    func didVisitURL(task: HTTPClient.Task<Void>, _ request: HTTPClient.Request, _ head: HTTPResponseHead) {
        state.withLockedValue { $0.visitedURL = request.url }
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let status = Int(head.status.code)
        // An informational head (100, 102, 103) is not the response, and is no sign of progress:
        // a server that sends them forever still meets the idle timeout.
        if status < 200, status != 101 { return task.eventLoop.makeSucceededVoidFuture() }
        state.withLockedValue { $0.answered = true }
        http2Watch?.observe(head.version)
        if let redirects, RedirectPolicy.redirectStatuses.contains(status) {
            switch redirect(head, status: status, with: redirects) {
            case .none:
                break
            case .some(.success(let followUp)):
                state.withLockedValue { $0.followUp = followUp }
                return task.eventLoop.makeSucceededVoidFuture()
            case .some(.failure(let refused)):
                return task.eventLoop.makeFailedFuture(refused)
            }
        }
        let url = state.withLockedValue { $0.visitedURL } ?? requestURL
        var inflater: BodyInflater?
        if head.headers.contains(name: "Content-Encoding"), ContentDecoding.mayHaveBody(status: Int(head.status.code), method: method) {
            let codings = ContentDecoding.codings(head.headers[canonicalForm: "Content-Encoding"].joined(separator: ","))
            if let refusal = ContentDecoding.refusal(of: codings, decodable: Self.decodableCodings, stacked: false, engine: "NIO") {
                // The body would reach the operation still encoded.
                return task.eventLoop.makeFailedFuture(Refused(failure: refusal))
            }
            if !codings.isEmpty {
                do {
                    inflater = try BodyInflater(ratio: decompressionRatio)
                } catch {
                    return task.eventLoop.makeFailedFuture(error)
                }
            }
        }
        // A head after a head (a redirect's) starts another body: the earlier decoder goes.
        state.withLockedValue { $0.inflater = inflater }
        let decoded = inflater != nil
        if let url {
            // A decoded body's length is not the announced one: the head loses Content-Length.
            let response = Self.responseHead(head, url: url, droppingContentLength: decoded)
            deliver { $0.transferDidReceive(head: response) }
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let (inflater, redirecting) = state.withLockedValue { ($0.inflater, $0.followUp != nil) }
        // The body of a 3xx answer that is followed goes nowhere.
        if redirecting { return task.eventLoop.makeSucceededVoidFuture() }
        let data: Data
        if let inflater {
            // Decoded outside the lock: AsyncHTTPClient hands over one part at a time.
            do {
                data = try inflater.decode(buffer)
            } catch {
                return task.eventLoop.makeFailedFuture(error)
            }
            if data.isEmpty { return task.eventLoop.makeSucceededVoidFuture() }
        } else if demand != nil {
            // A streamed chunk is read and dropped: it keeps AsyncHTTPClient's buffer instead of
            // a copy, so the bytes waiting for the reader are held once.
            data = Data(buffer: buffer, byteTransferStrategy: .noCopy)
        } else {
            data = Data(buffer.readableBytesView)
        }
        deliver { $0.transferDidReceive(data: data) }
        guard let demand else { return task.eventLoop.makeSucceededVoidFuture() }
        // Backpressure: the next part is read once the reader took enough. The promise is kept
        // here so that the transfer's end, however it comes, releases it too.
        let promise = task.eventLoop.makePromise(of: Void.self)
        state.withLockedValue { $0.awaitingReader = promise }
        if demand.whenReady({ [self] in readerCaughtUp() }) { readerCaughtUp() }
        return promise.futureResult
    }

    /// The reader can take more, or the transfer is over: AsyncHTTPClient reads on.
    private func readerCaughtUp() {
        state.withLockedValue { state -> EventLoopPromise<Void>? in
            defer { state.awaitingReader = nil }
            return state.awaitingReader
        }?.succeed()
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        fail(with: error)
    }

    /// The request's task failed. AsyncHTTPClient fails a task without telling its delegate when
    /// a redirect cannot be followed (a loop, too many) or the client was shut down: that failure
    /// is reported here. A transfer that already completed ignores it.
    func taskDidFail(_ error: any Error) {
        fail(with: error)
    }

    private func fail(with error: any Error) {
        let (cancelled, connected) = state.withLockedValue { ($0.cancelRequested, $0.connected) }
        if !cancelled, let resend, Self.isDroppedConnection(error, connected: connected), beginResend() {
            // The server closed the connection under the request before answering (a pooled
            // keep-alive connection it had given up): sent once more, on another connection.
            releaseLoopClaim()
            var trail = resend.trail
            trail.resent = true
            resend.engine.launch(resend.request, body: resend.body, events: events, trail: trail, handle: resend.handle)
            return
        }
        complete(
            cancelled ? .cancelled : NIOFailureMapping.failure(from: error, connected: connected),
            onEventLoop: completesOnEventLoop)
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        let (inflater, followUp) = state.withLockedValue { ($0.inflater, $0.followUp) }
        if let followUp, let redirects {
            follow(followUp, with: redirects)
            return
        }
        if let inflater {
            do {
                try inflater.finish()
            } catch {
                complete(error.failure, onEventLoop: completesOnEventLoop)
                return
            }
        }
        complete(nil, onEventLoop: completesOnEventLoop)
    }

    // MARK: Sending again

    /// Whether `error` says the connection closed under a request that had been written (or
    /// was being written to a connection closed meanwhile): the failure a pooled keep-alive
    /// connection that the server closed gives.
    static func isDroppedConnection(_ error: any Error, connected: Bool) -> Bool {
        if let client = error as? HTTPClientError { return client == .remoteConnectionClosed }
        if let channel = error as? ChannelError { return channel == .ioOnClosedChannel || (connected && channel == .eof) }
        if connected, let io = error as? IOError { return io.errnoCode == ECONNRESET || io.errnoCode == EPIPE }
        return false
    }

    /// Ends this hop for a resend, once: false when it ended already, was cancelled, or got an
    /// answer (a request answered in part is never sent again by the engine).
    private func beginResend() -> Bool {
        state.withLockedValue { state -> Bool in
            guard !state.completed, !state.cancelRequested, !state.answered, state.pending == nil, !state.delivering else {
                return false
            }
            state.completed = true
            return true
        }
    }

    // MARK: Redirects

    /// The redirect a 3xx head asks for: nil when it is not followed (the head is the response),
    /// the next hop, or the refusal of a loop or of one redirect too many.
    private func redirect(
        _ head: HTTPResponseHead, status: Int, with redirects: NIORedirectFollower
    ) -> Result<(request: URLRequest, keepsBody: Bool, target: URL), Refused>? {
        guard let location = head.headers.first(name: "Location"), let sent = redirects.request.url,
            let target = RedirectPolicy.target(of: location, from: sent)
        else { return nil }
        let hasBody: Bool
        if case .none = redirects.body { hasBody = redirects.request.httpBody != nil } else { hasBody = true }
        let step = RedirectPolicy.step(
            after: redirects.request, status: status, target: target, hasBody: hasBody, rules: events.redirectRules,
            responseFields: head.headers.map { (name: $0.name, value: $0.value) })
        guard case let .follow(next, keepsBody) = step else { return nil }
        let shown = Redaction.standard.urlWithoutQuery(target)
        if redirects.trail.visited.contains(target.absoluteString) {
            return .failure(Refused(failure: .other(code: -1007, reason: "redirect loop: \(shown) was requested before")))
        }
        if redirects.trail.count >= redirects.engine.maximumRedirects {
            let reason = "too many redirects: more than \(redirects.engine.maximumRedirects), the last to \(shown)"
            return .failure(Refused(failure: .other(code: -1007, reason: reason)))
        }
        return .success((next, keepsBody, target))
    }

    /// Starts the next hop of the transfer, which reports to the same events from now on.
    private func follow(_ followUp: (request: URLRequest, keepsBody: Bool, target: URL), with redirects: NIORedirectFollower) {
        var trail = redirects.trail
        trail.count += 1
        trail.visited.insert(followUp.target.absoluteString)
        let body = followUp.keepsBody ? redirects.body : .none
        // Marked complete here: this hop says nothing more; the next one completes the transfer.
        let proceed = state.withLockedValue { state -> Bool in
            guard !state.completed, !state.cancelRequested else { return false }
            state.completed = true
            return true
        }
        guard proceed else {
            complete(.cancelled, onEventLoop: completesOnEventLoop)
            return
        }
        releaseLoopClaim()
        redirects.engine.launch(followUp.request, body: body, events: events, trail: trail, handle: redirects.handle)
    }

    // MARK: Ordering

    /// Delivers one in-transfer event unless the transfer has completed.
    private func deliver(_ event: (any EngineEvents) -> Void) {
        let proceed = state.withLockedValue { state -> Bool in
            guard !state.completed else { return false }
            state.delivering = true
            return true
        }
        guard proceed else { return }
        event(events)
        let deferred = state.withLockedValue { state -> TransferFailure?? in
            state.delivering = false
            guard let pending = state.pending else { return nil }
            state.pending = nil
            state.completed = true
            return .some(pending)
        }
        if let deferred { report(deferred, onEventLoop: completesOnEventLoop) }
    }

    /// Completes the transfer once: now, or after the delivery in progress returns.
    private func complete(_ failure: TransferFailure?, onEventLoop: Bool) {
        let now = state.withLockedValue { state -> Bool in
            guard !state.completed, state.pending == nil else { return false }
            if state.delivering {
                state.pending = .some(failure)
                return false
            }
            state.completed = true
            return true
        }
        if now { report(failure, onEventLoop: onEventLoop) }
    }

    /// Hands the completion to the operation: right here on the event loop (the session delivers
    /// there), to the task awaiting it (an awaited operation or APILayer call, whose end, parse,
    /// validate and map run there), right here when nobody who may block listens, or on a queue
    /// of its own (`CompletionQueue.deliverEnd`).
    private func report(_ failure: TransferFailure?, onEventLoop: Bool) {
        if demand != nil { readerCaughtUp() }
        releaseLoopClaim()
        (redirects ?? resend)?.handle.release(self)
        if onEventLoop {
            events.transferDidComplete(failure: failure)
            return
        }
        CompletionQueue.deliverEnd(of: events, failure: failure)
    }

    /// The NetOps head of a response head: the fields as they came, no `HTTPURLResponse` made.
    static func responseHead(_ head: HTTPResponseHead, url: URL, droppingContentLength: Bool = false) -> ResponseHead {
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(head.headers.count)
        for (name, value) in head.headers {
            if droppingContentLength, name.caseInsensitiveEquals("Content-Length") { continue }
            fields.append((name, value))
        }
        return ResponseHead(url: url, statusCode: Int(head.status.code), httpVersion: versionName(head.version), fields: fields)
    }

    /// `HTTP/major.minor`, without building the string for the versions servers answer with.
    private static func versionName(_ version: HTTPVersion) -> String {
        switch (version.major, version.minor) {
        case (1, 1): "HTTP/1.1"
        case (1, 0): "HTTP/1.0"
        case (2, 0): "HTTP/2.0"
        case let (major, minor): "HTTP/\(major).\(minor)"
        }
    }
}
