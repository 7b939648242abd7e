import Foundation
import Logging
import NetOps

/// The settings of a NetOps session that runs on SwiftNIO (AsyncHTTPClient).
///
/// The defaults are safe: TLS certificates are verified (the system's roots, TLS 1.2 or newer),
/// HTTP/2 is offered over TLS, redirects are followed (up to 10, by the engine itself, as the
/// URLSession engine follows them) and never carry a credential header, a header or parameter the
/// operation's redaction names, or a body to another origin, nor step from https down to http;
/// gzip and deflate bodies are decoded up to 100 times their encoded size; a connection that
/// cannot be made fails at once (the retry policy, not the engine, tries again); an idempotent
/// request that a server drops on a kept-alive connection before answering is sent once more on
/// another. Size the pool for the concurrency you run at:
///
/// ```swift
/// let session = NetworkSession.nio(configuration: NIOEngineConfiguration(concurrency: 64))
/// ```
public struct NIOEngineConfiguration: Sendable {
    /// HTTP/1.1 keep-alive connections the pool may hold open per host (at least 1).
    ///
    /// Requests beyond it wait for a free connection. AsyncHTTPClient's own default (8) costs
    /// about 30 % throughput at 64 concurrent requests, so the default here is 16, like NetOps'
    /// URLSession default; use `init(concurrency:)` to match the load you generate.
    public var maximumConnectionsPerHost: Int
    /// How long an unused keep-alive connection stays open, in seconds.
    public var idleConnectionTimeout: TimeInterval
    /// How long establishing a connection (TCP and TLS) may take, in seconds.
    public var connectTimeout: TimeInterval
    /// Whether 3xx responses with a `Location` are followed (an operation's `followsRedirects`
    /// can still turn them off for itself).
    public var followsRedirects: Bool
    /// The most redirects one request follows before it fails.
    public var maximumRedirects: Int
    /// How many times its encoded size a gzip or deflate body may grow when it is decoded (at
    /// least 1; default 100).
    ///
    /// The engine offers `Accept-Encoding: deflate, gzip` (unless the request names its own) and
    /// decodes such bodies; one that grows past the limit — a decompression bomb — fails the
    /// operation with `NetOpsError.Kind.transport(code: -1016, …)`, and so does a body in a
    /// coding the engine cannot decode (brotli, zstd, …) instead of reaching the operation
    /// still encoded.
    public var decompressionRatioLimit: Int
    /// Turns TLS certificate verification **off** when true: neither the chain nor the host name
    /// is checked. For test servers only; the same as `tls = .insecureWithoutVerification()`.
    ///
    /// A session made with it logs a warning through `logger` once, when it is made.
    public var insecureSkipCertificateVerification: Bool
    /// The TLS settings of the session's requests (trust roots, client certificate, oldest
    /// version); an operation or API scope with settings of its own uses those instead, on
    /// connections of their own. Default: `TLSSettings.standard`.
    public var tls: TLSSettings = .standard
    /// Whether the session's requests go through a proxy (default `.direct`); an operation or
    /// API scope with a choice of its own uses that instead. `.environment` reads
    /// `http_proxy`/`HTTPS_PROXY`/`NO_PROXY` as curl does (`EnvironmentProxies`).
    ///
    /// Direct by default, unlike curl: a service's egress is a deployment decision, and a proxy
    /// variable left in a container's environment would otherwise route every API's traffic —
    /// and expose its hosts — to whatever it names. Say `.fromEnvironment()` to follow them.
    public var proxy: ProxyChoice = .direct
    /// Whether HTTP/2 is offered by ALPN on TLS connections (default true); cleartext
    /// connections stay HTTP/1.1. An operation or scope can keep its own requests on HTTP/1.1
    /// (`BaseOperation.allowsHTTP2`), not turn HTTP/2 on where this is false.
    public var allowsHTTP2 = true
    /// Whether a connection that cannot be made is tried again by AsyncHTTPClient, with a
    /// growing pause, until `connectTimeout` (default false).
    ///
    /// Off by default: such a loop hides every attempt from the retry policy and the circuit
    /// breaker, and it also retries what will not change — a refused connection, a certificate
    /// the engine refuses, a name that does not resolve — for the whole connect timeout (10 s
    /// measured for each). A refused connection then fails at once (`cannotConnect`), as on the
    /// URLSession engine, and the operation's `RetryPolicy` decides whether it is tried again
    /// (idempotent requests only, with backoff and jitter, each attempt seen by the breaker).
    public var retriesConnectionEstablishment = false
    /// Idle HTTP/1.1 connections the pool keeps ready per host beyond those in use, opened one
    /// at a time once a first connection to the host exists (default 0).
    public var preWarmedConnectionsPerHost = 0
    /// How many requests one connection serves before it is replaced by a new one; nil (the
    /// default): no limit. Values below 1 are taken as 1.
    public var maximumUsesPerConnection: Int?
    /// Host names to connect to instead of the ones requested, whose certificates are still
    /// verified for the name requested: `["api.example.com": "10.0.0.7"]`.
    public var dnsOverride: [String: String] = [:]
    /// Whether the addresses a name resolves to are tried in random order instead of the
    /// system's (spreads connections over the A/AAAA records of a headless service). Default false.
    public var randomizesResolution = false
    /// Where the engine reports warnings (and AsyncHTTPClient its background activity).
    public var logger: Logger
    /// Whether AsyncHTTPClient starts a span of its own for every HTTP request (default false).
    ///
    /// When true, the client takes the tracer bootstrapped in `InstrumentationSystem` when the
    /// session is made, as a plain `HTTPClient` does. APILayer already reports every attempt as a
    /// span (and injects its context into the request), so AsyncHTTPClient's would duplicate it;
    /// and with no tracer bootstrapped, AsyncHTTPClient still builds a no-op span and its
    /// attributes for every request (about 30 000 instructions, a tenth of what the whole request
    /// costs: `Docs/engines.md`, "Spans").
    public var makesClientSpans = false
    /// Where the end of a transfer is handed to its operation, and so where completion handlers,
    /// the interceptor's judgement and `run()`'s continuation start: `.dispatchQueue` (the
    /// default) or `.eventLoop`.
    public var completionDelivery: CompletionDelivery = .dispatchQueue

    /// Where the end of a transfer is handed to its operation.
    public enum CompletionDelivery: Sendable {
        /// On a dispatch queue of its own: completion handlers may block (wait for another
        /// operation, `syncStart()`), at the cost of one thread hand-off per request.
        case dispatchQueue
        /// On the transfer's event loop, as AsyncHTTPClient completes its own futures: no
        /// hand-off, so a request costs about what a raw AsyncHTTPClient request does. Completion
        /// handlers then run on the event loop and must not block it (no `syncStart()`, no
        /// `waitUntilFinished()`, no long computation): hand such work to another queue.
        case eventLoop
    }

    /// A configuration with safe defaults (see the type's description).
    public init(
        maximumConnectionsPerHost: Int = 16,
        idleConnectionTimeout: TimeInterval = 60,
        connectTimeout: TimeInterval = 10,
        followsRedirects: Bool = true,
        maximumRedirects: Int = 10,
        insecureSkipCertificateVerification: Bool = false,
        logger: Logger = Logger(label: "NetOpsNIO"),
        decompressionRatioLimit: Int = 100
    ) {
        self.maximumConnectionsPerHost = max(1, maximumConnectionsPerHost)
        self.idleConnectionTimeout = idleConnectionTimeout
        self.connectTimeout = connectTimeout
        self.followsRedirects = followsRedirects
        self.maximumRedirects = maximumRedirects
        self.insecureSkipCertificateVerification = insecureSkipCertificateVerification
        self.logger = logger
        self.decompressionRatioLimit = max(1, decompressionRatioLimit)
    }

    /// A configuration whose pool holds one connection per concurrent request, for a service
    /// that runs up to `concurrency` requests to one host at a time.
    public init(concurrency: Int) {
        self.init(maximumConnectionsPerHost: concurrency)
    }
}
