import Foundation

/// Why a network operation failed. Every error names the URL it concerns.
public struct NetOpsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Kind: Sendable, Equatable {
        /// The URL string could not be parsed.
        case invalidURL(String)
        /// The URL's scheme is not `http` or `https`.
        case unsupportedScheme(String)
        /// No connection could be made to this host (refused, unknown host, …) while the
        /// machine itself seemed able to reach the network.
        case cannotConnect(reason: String)
        /// No connection could be made because the machine cannot reach the network: no
        /// interface other than loopback is up, the route is missing, or the operation's
        /// `ConnectivityMonitor` last found it offline (see `Docs/operations.md`).
        case offline(reason: String)
        /// The connection broke before the response was complete.
        case connectionLost(reason: String)
        /// The TLS handshake failed: the server's certificate is not trusted, expired or names
        /// another host, the server asked for a client certificate or refused the one sent, no
        /// protocol version both accept, or the operation's `TLSSettings` are more than its engine
        /// can use. The reason is the TLS library's own text, without build paths.
        case tls(reason: String)
        /// The response body ended before its announced length.
        case truncatedBody(expected: Int64, received: Int64)
        /// Any other transport failure, with the engine's code and text.
        case transport(code: Int, reason: String)
        /// The server answered with a status the operation does not accept.
        case httpStatus(Int)
        /// The operation was cancelled.
        case cancelled
        /// No byte moved for the idle timeout.
        case idleTimeout(seconds: Double)
        /// The operation worked longer than its total deadline.
        case deadlineExceeded(seconds: Double)
        /// `timeLimitBetweenRuns` forbids running again before this date.
        case tooSoon(retryAfter: Date)
        /// A local file could not be read, written or moved.
        case file(path: String, reason: String)
        /// The request body could not be prepared.
        case invalidBody(reason: String)
        /// The request cannot go as it is: a header name or value, or the method, would break the
        /// request's framing on the wire (a CR, LF or other control character, a character a
        /// field name or a method may not hold). The reason names the header, never its value.
        case invalidRequest(reason: String)
        /// The request needed a credential that could not be had (the refresh failed, or the
        /// response said so in its body).
        case authenticationFailed(reason: String)
        /// The layer above the operation refused its request before it went, or a response
        /// that arrived whole (APILayer: a request it could not build, a body that broke its
        /// template or did not map); that layer's own error says more.
        case rejected(reason: String)
        /// Not sent: the origin failed too often in a row, and its `CircuitBreaker` refuses
        /// requests to it for `retryAfter` more seconds.
        case circuitOpen(origin: String, retryAfter: Double)
        /// A streamed response body (`StreamingOperation`) could not go on: it was read a second
        /// time, its reader fell further behind than an engine without backpressure may buffer,
        /// or the server sent the body again from its start after part of it was read.
        case stream(reason: String)
    }

    /// What went wrong.
    public var kind: Kind
    /// The URL of the request (as far as it was known).
    public var url: URL?
    /// The error a stage of the middleware chain failed the operation with, as it was thrown
    /// or decided (APILayer's typed `APIError`, a service's own): the `.rejected` error wraps it
    /// as a value, and its reason is its description. Not compared by `==`.
    public var underlying: (any Error)? {
        get { boxed?.error }
        set { boxed = Extras(error: newValue, redaction: boxed?.redaction) }
    }
    /// `underlying`, and the redaction of the operation the error belongs to, behind one
    /// reference: every operation keeps a few `NetOpsError`s inline, and an existential would
    /// make each 32 bytes larger.
    private var boxed: Extras?

    /// An error of `kind` concerning `url`.
    public init(_ kind: Kind, url: URL?) {
        self.kind = kind
        self.url = url
    }

    /// A `.rejected` error concerning `url` that carries `underlying`, the error a stage of the
    /// middleware chain decided on.
    public init(rejecting underlying: any Error, url: URL?) {
        self.kind = .rejected(reason: String(describing: underlying))
        self.url = url
        self.boxed = Extras(error: underlying, redaction: nil)
    }

    /// Whether two errors are of the same kind for the same URL (their underlying errors are not
    /// compared).
    public static func == (lhs: NetOpsError, rhs: NetOpsError) -> Bool {
        lhs.kind == rhs.kind && lhs.url == rhs.url
    }

    /// The HTTP status, when the failure is an unaccepted status.
    public var httpStatus: Int? {
        if case let .httpStatus(status) = kind { return status }
        return nil
    }

    /// True when the operation failed because no byte moved, or its deadline passed.
    public var isTimeout: Bool {
        switch kind {
        case .idleTimeout, .deadlineExceeded: return true
        default: return false
        }
    }

    /// One readable line, e.g. `HTTP status 404 for http://127.0.0.1:8080/missing`: the URL
    /// without its query, and anything in a reason that looks like a credential replaced by
    /// `<redacted>` (see `Redaction`).
    public var description: String {
        (boxed?.redaction ?? .standard).text(unredactedDescription)
    }

    /// This error, described with `redaction` (an operation's: the secret path segments it
    /// declares are hidden too) instead of the standard one.
    package func describing(with redaction: Redaction) -> NetOpsError {
        var error = self
        error.boxed = Extras(error: boxed?.error, redaction: redaction)
        return error
    }

    private var unredactedDescription: String {
        let target = url.map { url in " for \((boxed?.redaction).map { Self.redacted(url, by: $0) } ?? Self.redacted(url))" } ?? ""
        switch kind {
        case let .invalidURL(text): return "invalid URL '\(text)'"
        case let .unsupportedScheme(scheme): return "unsupported URL scheme '\(scheme)'\(target)"
        case let .cannotConnect(reason): return "cannot connect\(target): \(reason)"
        case let .offline(reason): return "offline, cannot connect\(target): \(reason)"
        case let .connectionLost(reason): return "connection lost\(target): \(reason)"
        case let .tls(reason): return "TLS failure\(target): \(reason)"
        case let .truncatedBody(expected, received):
            return "response body truncated\(target): \(received) of \(expected) bytes arrived"
        case let .transport(code, reason): return "transport error \(code)\(target): \(reason)"
        case let .httpStatus(status): return "HTTP status \(status)\(target)"
        case .cancelled: return "cancelled\(target)"
        case let .idleTimeout(seconds): return "no data for \(seconds) s\(target)" + ((boxed?.error).map { "; \($0)" } ?? "")
        case let .deadlineExceeded(seconds): return "deadline of \(seconds) s exceeded\(target)"
        case let .tooSoon(date): return "run again no earlier than \(date)\(target) (timeLimitBetweenRuns)"
        case let .file(path, reason): return "file error at \(path)\(target): \(reason)"
        case let .invalidBody(reason): return "invalid request body\(target): \(reason)"
        case let .invalidRequest(reason): return "invalid request\(target): \(reason)"
        case let .authenticationFailed(reason): return "authentication failed\(target): \(reason)"
        case let .rejected(reason): return "rejected\(target): \(reason)"
        case let .circuitOpen(origin, retryAfter):
            return "circuit open for \(origin) after repeated failures\(target): not sent, the next try in \(Int(retryAfter.rounded(.up))) s"
        case let .stream(reason): return "response stream\(target): \(reason)"
        }
    }

    /// The URL without its query, user info and fragment (Redaction's rule), with `?…` where a
    /// query was: tokens passed as parameters never reach a log.
    static func redacted(_ url: URL, by redaction: Redaction = .standard) -> String {
        redaction.urlWithoutQuery(url) + (url.query != nil ? "?…" : "")
    }
}

extension NetOpsError.Kind {
    /// The case's name, e.g. `cannotConnect` or `offline`: a low-cardinality label for metrics,
    /// spans (OpenTelemetry's `error.type`) and scripts.
    public var name: String {
        switch self {
        case .invalidURL: return "invalidURL"
        case .unsupportedScheme: return "unsupportedScheme"
        case .cannotConnect: return "cannotConnect"
        case .offline: return "offline"
        case .connectionLost: return "connectionLost"
        case .tls: return "tls"
        case .truncatedBody: return "truncatedBody"
        case .transport: return "transport"
        case .httpStatus: return "httpStatus"
        case .cancelled: return "cancelled"
        case .idleTimeout: return "idleTimeout"
        case .deadlineExceeded: return "deadlineExceeded"
        case .tooSoon: return "tooSoon"
        case .file: return "file"
        case .invalidBody: return "invalidBody"
        case .invalidRequest: return "invalidRequest"
        case .authenticationFailed: return "authenticationFailed"
        case .rejected: return "rejected"
        case .circuitOpen: return "circuitOpen"
        case .stream: return "stream"
        }
    }
}

/// The error a `NetOpsError` carries as its `underlying` one, and the redaction it is described
/// with.
private final class Extras: Sendable {
    let error: (any Error)?
    let redaction: Redaction?

    init?(error: (any Error)?, redaction: Redaction?) {
        guard error != nil || redaction != nil else { return nil }
        self.error = error
        self.redaction = redaction
    }
}
