import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The seam between operations and the HTTP machinery below them.
///
/// Operations know only this protocol, `URLRequest` and `HTTPURLResponse`: URLSession is the
/// default engine, and another engine (SwiftNIO) can sit under the same operations. An engine
/// runs one request per call and reports its events, in order, to the handler it was given.
package protocol TransferEngine: Sendable {
    /// Sends `request` with `body` and reports every event to `events`.
    ///
    /// Events for one transfer never overlap: response, then data chunks (and upload progress),
    /// then exactly one `transferDidComplete`. After `cancel()` on the returned handle the
    /// engine still reports `transferDidComplete` (with `.cancelled`).
    func startTransfer(_ request: URLRequest, body: TransferBody, events: any EngineEvents) -> any TransferHandle

    /// Why the engine cannot run a transfer to `url` that asks for `transport` (TLS settings or
    /// an HTTP version it has no way to apply), naming the engine that can; nil when it can.
    func refusal(of transport: TransportChoice, for url: URL?) -> TransferFailure?

    /// Closes the engine's connections; transfers still running fail, later ones fail at once.
    /// Calling it again does nothing.
    func shutdown() async throws

    /// Who a transfer to `url` asking for `transport` is to the servers beyond its request's
    /// fields: the engine, the TLS client certificate and trust it uses (the transfer's or the
    /// engine's own), the proxy it goes through. Equal texts present the same identity; the
    /// text is the same across restarts and holds no secret (a response cache digests it into its
    /// keys).
    func transportIdentity(for transport: TransportChoice, url: URL?) -> String

    /// The TLS settings a transfer that asks for none of its own gets.
    var defaultTLS: TLSSettings { get }
}

extension TransferEngine {
    /// Every choice can be honoured unless an engine says otherwise.
    package func refusal(of transport: TransportChoice, for url: URL?) -> TransferFailure? { nil }

    /// An engine that holds no connections has nothing to close.
    package func shutdown() async throws {}

    /// The engine's type: an engine that can apply no TLS settings or proxy of a transfer's own
    /// presents one identity (what libcurl reads from the environment is the same for all).
    package func transportIdentity(for transport: TransportChoice, url: URL?) -> String {
        String(describing: type(of: self))
    }

    /// The system's trust, TLS 1.2 or newer, verifying: what the URLSession engine always does.
    package var defaultTLS: TLSSettings { .standard }
}

/// Where a request's body comes from.
public enum TransferBody: Sendable {
    /// No body (or the body is already in the request).
    case none
    /// A body held in memory.
    case data(Data)
    /// A body streamed from a file.
    case file(URL)
}

/// Receives one transfer's events: from an engine, or from a `TransferStage` that answers the
/// request itself or passes on what the transfer below it reports.
///
/// Events for one transfer never overlap and come in order: a response head (again when a
/// transfer starts over), then body chunks (and upload progress), then exactly one
/// `transferDidComplete`. They may arrive on a thread every transfer shares (an event loop):
/// a receiver does nothing slow in them.
public protocol TransferEvents: AnyObject, Sendable {
    /// The response head arrived (it may come again when the transfer starts over; the last
    /// one counts).
    func transferDidReceive(head: ResponseHead)
    /// A chunk of the response body arrived.
    func transferDidReceive(data: Data)
    /// Upload progress: `sent` bytes of the body so far, of `expected` (nil when unknown).
    func transferDidSend(sent: Int64, expected: Int64?)
    /// The transfer ended; nil means the whole response arrived.
    func transferDidComplete(failure: TransferFailure?)
}

/// What an engine reads of the transfer it runs besides its events: where the body goes, who
/// reads a streamed one, the redirect rules, TLS and proxy, and where its end may run.
package protocol EngineEvents: TransferEvents {
    /// True when the body goes to a file, not to memory: an engine without backpressure may then
    /// fetch it in bounded `Range` segments and report them as one response.
    var bodyGoesToFile: Bool { get }
    /// The reader of a streamed body, when the body goes to one (`StreamingOperation`): an
    /// engine asks it after each chunk whether to read on (`BodyDemand`).
    var bodyDemand: (any BodyDemand)? { get }
    /// What the transfer's redirects may do and carry (`RedirectPolicy`).
    var redirectRules: RedirectRules { get }
    /// The transfer's own TLS settings and HTTP/2 switch (`TransportChoice`).
    var transport: TransportChoice { get }
    /// True when the end of the transfer may be delivered on the thread it arrived on: nobody
    /// who may block (a completion closure, a delegate) listens. Read once, when it ends.
    var completesInPlace: Bool { get }
    /// The task awaiting the operation, when one does and nobody who may block listens: the end
    /// goes to it instead of a queue (`EndRelay`). Read once, when it ends.
    var endRelay: EndRelay? { get }
}

extension EngineEvents {
    /// Bodies go to memory unless a handler says otherwise.
    package var bodyGoesToFile: Bool { false }
    /// No reader to wait for unless a handler says otherwise.
    package var bodyDemand: (any BodyDemand)? { nil }
    /// Redirects are followed with the standard credentials stripped unless a handler says otherwise.
    package var redirectRules: RedirectRules { .standard }
    /// The session's TLS settings, HTTP/2 allowed, unless a handler says otherwise.
    package var transport: TransportChoice { .standard }
    /// The end is handed off unless a handler says otherwise.
    package var completesInPlace: Bool { false }
    /// No task awaits the end unless a handler says otherwise.
    package var endRelay: EndRelay? { nil }
}

extension TransferEvents {
    /// The response head arrived, as an `HTTPURLResponse` the engine made already.
    package func transferDidReceive(response: HTTPURLResponse) {
        transferDidReceive(head: ResponseHead(response))
    }
}

/// Stops a transfer.
public protocol TransferHandle: Sendable {
    /// Stops the transfer; its events end with `transferDidComplete(failure: .cancelled)`.
    func cancel()
}

/// How a transfer failed, in terms that do not depend on the engine.
public enum TransferFailure: Error, Sendable, Equatable {
    /// `cancel()` was called.
    case cancelled
    /// The engine's own timeout fired.
    case timedOut
    /// No connection could be made.
    case cannotConnect(String)
    /// The connection broke mid-transfer.
    case connectionLost(String)
    /// The TLS handshake failed, or the transfer's TLS settings are more than the engine can use.
    case tls(String)
    /// The engine does not support the URL.
    case unsupportedURL(String)
    /// A local file (upload body) could not be read.
    case file(String)
    /// Anything else.
    case other(code: Int, reason: String)

    /// The failure's text.
    public var reason: String {
        switch self {
        case .cancelled: "cancelled"
        case .timedOut: "timed out"
        case let .cannotConnect(reason), let .connectionLost(reason), let .tls(reason), let .unsupportedURL(reason), let .file(reason),
            let .other(_, reason):
            reason
        }
    }
}
