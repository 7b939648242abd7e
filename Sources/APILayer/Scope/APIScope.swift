import Foundation
import Instrumentation
import Logging
import Mapper
import Metrics
import NetOps
import NetOpsHTTP
import TemplateInference
import Templater
import Tracing

/// Everything that belongs to one API a service calls: base URL and trusted origins,
/// templates, session, authentication, retry policy, mapper configuration, stub mode, logger,
/// and where its metrics and spans go.
///
/// A service that calls its own backend and a third-party API declares one scope for each, and
/// each method enum names its scope; a token then only ever goes to its own API's origins:
///
/// ```swift
/// extension APIScope {
///     static let tracker = APIScope(name: "tracker")
/// }
///
/// enum TrackerAPI: String, APIMethod {
///     static var api: APIScope { .tracker }
///     case listIssues = "issues/list-for-repo"
///     var path: String { "repos/{owner}/{repo}/issues" }
///     …
/// }
///
/// APIScope.tracker.configure { $0.baseURL = URL(string: "https://tracker.example.com/")! }
/// APIScope.tracker.configureAuthentication(authenticator: …, store: FileTokenStore(service: "tracker"))
/// ```
///
/// Methods that name no scope belong to `APIManager.defaultAPI`, which the static members of
/// `APIManager` (`baseURL`, `configureAuthentication`, …) configure. An operation reads its
/// scope once, when it is made: changing a scope later affects operations made later.
public final class APIScope: Sendable, CustomStringConvertible {
    /// What a scope holds besides its authentication, as one value.
    public struct Configuration: Sendable {
        /// The URL every method's path is joined to; `nil` fails every call at construction.
        public var baseURL: URL?
        /// Other origins that may receive this API's token (an upload host of the same API).
        /// Only scheme, host and port of each URL count.
        public var trustedOrigins: [URL]
        /// Where the methods' templates are.
        public var templates: TemplateStore
        /// The session the API's operations run in; nil: `NetworkSession.shared`.
        public var session: NetworkSession?
        /// The retry policy of the API's operations; nil: their session's.
        public var retryPolicy: RetryPolicy?
        /// The API's own stages (see `NetworkMiddleware`): after its session's, before the
        /// API's authentication and telemetry, on every operation the scope makes or adopts
        /// from then on. An operation keeps the chain it started with.
        public var middleware: [any NetworkMiddleware] = []
        /// How the API's models are decoded.
        public var mapperConfiguration: Mapper.Configuration
        /// Whether calls answer from the templates instead of the network.
        public var stubMode: StubMode
        /// Where the API's calls and its authentication log. At `debug` level each request and
        /// response gets a line, with the call's request ID in the metadata.
        public var logger: Logger
        /// Where the API's metrics go; nil: `MetricsSystem.factory`, read when each operation is
        /// made (nothing is recorded while the service bootstrapped no backend). APILayer never
        /// bootstraps the metrics system itself.
        public var metricsFactory: (any MetricsFactory)?
        /// Where the API's spans go, and how trace context is injected into requests; nil:
        /// `InstrumentationSystem.tracer`, read when each operation is made (a no-op tracer
        /// until the service bootstraps one).
        public var tracer: (any Tracer)?
        /// What log lines, `cURLDescription`, span names and attributes and error texts of this
        /// API hide: the standard credential headers and parameters, plus the names and secret
        /// path segments the API adds (`Redaction(paths: ["/bot{secret}"])` for a bot token in the
        /// base URL). A method's path placeholder named like a credential (`{token}`) is hidden
        /// without being declared.
        public var redaction: Redaction
        /// The longest response body a call keeps in memory (64 MiB unless set:
        /// `BaseOperation.defaultMaximumResponseBodyBytes`; nil: no limit). A longer one fails
        /// the call with `NetOpsError.Kind.transport(code: BaseOperation.responseBodyTooLargeCode,
        /// …)` before it is parsed, whatever the server sends; see
        /// `BaseOperation.maximumResponseBodyBytes`, the same setting for one operation.
        public var maximumResponseBodyBytes: Int64? = BaseOperation.defaultMaximumResponseBodyBytes

        /// The longest response body a call keeps in memory, under its former name.
        @available(*, deprecated, renamed: "maximumResponseBodyBytes")
        public var maximumResponseBytes: Int64? {
            get { maximumResponseBodyBytes }
            set { maximumResponseBodyBytes = newValue }
        }

        /// The default of `maximumResponseBodyBytes`: 64 MiB.
        @available(*, deprecated, renamed: "BaseOperation.defaultMaximumResponseBodyBytes")
        public static var defaultMaximumResponseBytes: Int64 { BaseOperation.defaultMaximumResponseBodyBytes }

        /// The most seconds a call of this API may take from its start to its end, retries,
        /// waits between them and time parked for a token refresh included (120 s unless set;
        /// nil: no limit). A call past it fails with `NetOpsError.Kind.deadlineExceeded`.
        ///
        /// The idle timeout (60 s without a byte) alone does not end a call whose server drips
        /// one byte at a time; this bound does. 120 s is twice the idle timeout, and room for a
        /// body of the default 64 MiB limit at about 4.5 Mbit/s: raise it for an API that streams
        /// large bodies or runs long reports.
        public var totalTimeout: TimeInterval? = Configuration.defaultTotalTimeout

        /// The default of `totalTimeout`: 120 s.
        public static let defaultTotalTimeout: TimeInterval = 120

        /// Whether the API's calls send and keep cookies (default false: none is sent or kept).
        ///
        /// When true, the scope's own in-memory `CookieJar` (`APIScope.cookieJar`) stores what
        /// the API's answers set (RFC 6265: `Domain`, `Path`, `Secure`, expiry and the
        /// `__Host-`/`__Secure-` prefixes honoured; a host a redirect leads to sets nothing) and
        /// its calls send what matches; no other API, and no plain operation, sees those
        /// cookies. Every caller of the scope shares the jar.
        public var usesCookies = false

        /// The monitor the API's calls consult when they fail to connect (nil: none). With one,
        /// a call whose host cannot be reached while the monitor finds the network down fails
        /// with `NetOpsError.Kind.offline` instead of `cannotConnect`, without each operation
        /// being given the monitor; see `BaseOperation.connectivityMonitor`. A monitor serves
        /// any number of APIs: give each scope the same one.
        public var connectivityMonitor: ConnectivityMonitor?

        /// Where the API's calls run their completion, progress and state closures (nil: on an
        /// internal thread); see `BaseOperation.callbackQueue`. A service that hands results to
        /// one serial queue of its own (an actor's executor, a UI-less event queue) sets it once
        /// here instead of hopping in every closure.
        public var callbackQueue: DispatchQueue?

        /// The API's circuit breaker, or nil (the default: a call to an origin that keeps
        /// failing waits for its own timeout). Given one, consecutive failures (transport errors,
        /// 5xx) of one of the API's origins past `failureThreshold` open its circuit: calls fail
        /// at once with `NetOpsError.Kind.circuitOpen` until, after `coolDown`, one probe
        /// succeeds. Off by default because the right threshold depends on the API's traffic,
        /// and a breaker that opens changes what callers see; see `CircuitBreaker`. The scope
        /// keeps one breaker while this value stays the same, logs each change of a circuit
        /// (`warning` when it opens) and counts it (`apilayer.circuit.transitions`).
        public var circuitBreaker: CircuitBreaker.Configuration?

        /// The API's rate limits (see `RateLimiter`); nil: none. By default the server's own
        /// limits are honoured: a 429 (or a 503 of a replayable request) with `Retry-After`, or
        /// budget headers that say nothing is left (GitHub's `X-RateLimit-*`, the IETF draft's
        /// `RateLimit`), park the calls of the same caller — the same origin and credentials, so
        /// one user's per-call token never holds back another's — until the time given (a minute
        /// at most by default), and replay them in order. An answer from a host a redirect
        /// reached sets no wait.
        /// An API that sends none of these costs nothing, and one that does would otherwise
        /// throttle or ban the service for ignoring them. A budget of the service's own
        /// (`requestsPerInterval`) and `Idempotency-Key`s are off until set. The scope keeps one
        /// limiter while this value stays the same; each wait a server imposes is logged and
        /// counted (`apilayer.ratelimit.waits`).
        public var rateLimit: RateLimiter.Configuration? = RateLimiter.Configuration()

        /// Whether identical calls in flight at once share one request (see `RequestCoalescer`),
        /// or nil (the default: each call sends its own). Given a configuration, a GET or HEAD
        /// of the API started while the same request (same URL, headers and token) is in flight
        /// joins it: one request to the server, every call its own result, owner and
        /// cancellation. Off by default because a shared answer is one observation of the
        /// resource: a caller that polls for a change, or counts on each call reaching the
        /// server, would be surprised. Each call that joined is counted
        /// (`apilayer.coalesced.requests`) and its attempt span says so (`apilayer.coalesced`).
        public var coalescing: RequestCoalescer.Configuration?

        /// The API's HTTP cache (see `HTTPCache`), or nil (the default: every call reaches the
        /// server). With one, a GET answered with a lifetime (`Cache-Control: max-age`,
        /// `Expires`) is answered from memory (or the cache's folder) while fresh, and one
        /// with an `ETag` or `Last-Modified` is revalidated: a 304 costs the server almost
        /// nothing (GitHub does not count it against the rate limit), and the call reuses the
        /// model already validated and mapped from that body. Off by default because what a
        /// service may serve stale is its decision: a server's `max-age` written for browsers
        /// could hide a change the service just made elsewhere. Give each scope its own cache:
        /// entries are keyed by every request header and by the TLS client certificate, proxy and
        /// engine of the call, so two tokens or two client certificates never share one. Each
        /// request counts in `apilayer.cache.lookups` and its attempt span says how
        /// (`apilayer.cache`).
        public var cache: HTTPCache?

        /// The TLS settings of the API's calls (a private CA, a client certificate for mutual
        /// TLS, the oldest version accepted), or nil (the default): the session's. Made once
        /// with `try TLSSettings(…)`, which reads and checks the files then. Only the SwiftNIO
        /// engine can use settings other than `TLSSettings.standard`: on a URLSession session
        /// each call fails at `construction`, naming the engine that can.
        public var tls: TLSSettings?

        /// Whether the API's calls go through a proxy, and which; nil (the default): as the
        /// session says (direct on a NIO session unless its configuration names a proxy). See
        /// `BaseOperation.proxy` for what each engine can do; on a URLSession session a choice it
        /// cannot honour fails each call at `construction`.
        public var proxy: ProxyChoice?

        /// Whether the API's calls may use HTTP/2 where the server offers it over TLS (default
        /// true; see `BaseOperation.allowsHTTP2`). False keeps them on HTTP/1.1 connections, on
        /// the SwiftNIO engine; a URLSession session cannot, and fails https calls at
        /// `construction`.
        public var allowsHTTP2 = true

        /// Whether the API's token may go where it can be read or changed on the way: over
        /// `http://`, or over TLS that verifies nothing or accepts versions older than 1.2, to a
        /// host other than loopback (default false: such a call fails before anything is sent,
        /// with `NetOpsError.Kind.invalidRequest` naming this setting). Set in code only; no
        /// configuration key reads it, so that one value in an environment cannot send a token
        /// in clear.
        public var allowsInsecureTransport = false

        /// What a call does with a response that breaks its method's template: `.strict` (the
        /// default) fails it; `.reportOnly` counts and logs the failure and lets the call go on
        /// to mapping (see `ValidationMode`).
        public var validationMode: ValidationMode = .strict

        /// Whether the API's answers are recorded into inferred templates (see
        /// `TemplateRecording`), or nil (the default: nothing is recorded). An answer is
        /// recorded when it passed authentication, the status check and the method's
        /// `bodyError`, before validation (an answer that breaks the template is the drift a
        /// new template should show); stubs and downloads are never recorded. The
        /// scope keeps one `TemplateRecorder` (`APIScope.templateRecorder`) while this value
        /// and `redaction` stay the same (values of keys the redaction names are never kept);
        /// a changed value starts a new one, so flush the old one first. An `APIService` flushes
        /// its scopes' recorders when it stops.
        public var templateRecording: TemplateRecording?

        /// A configuration; every part has a default.
        public init(
            baseURL: URL? = nil, trustedOrigins: [URL] = [], templates: TemplateStore = Templater.shared,
            session: NetworkSession? = nil, retryPolicy: RetryPolicy? = nil,
            mapperConfiguration: Mapper.Configuration = Mapper.Configuration(), stubMode: StubMode = .off,
            logger: Logger = Logger(label: "APILayer"), metricsFactory: (any MetricsFactory)? = nil,
            tracer: (any Tracer)? = nil, redaction: Redaction = .standard
        ) {
            self.baseURL = baseURL
            self.trustedOrigins = trustedOrigins
            self.templates = templates
            self.session = session
            self.retryPolicy = retryPolicy
            self.mapperConfiguration = mapperConfiguration
            self.stubMode = stubMode
            self.logger = logger
            self.metricsFactory = metricsFactory
            self.tracer = tracer
            self.redaction = redaction
        }

        /// The metrics factory calls record into: the configured one, else the global one.
        var resolvedMetricsFactory: any MetricsFactory { metricsFactory ?? MetricsSystem.factory }

        /// The tracer calls report to: the configured one, else the global one.
        var resolvedTracer: any Tracer { tracer ?? InstrumentationSystem.tracer }

        /// The origins the API's token may go to: the base URL's and the trusted ones.
        public var origins: Set<Origin> {
            var origins = Set(trustedOrigins.compactMap(Origin.init))
            if let baseURL, let origin = Origin(baseURL) { origins.insert(origin) }
            return origins
        }
    }

    /// What an operation reads of its scope when it is made.
    struct Snapshot: Sendable {
        let name: String
        /// The scope's reports not made yet.
        let reportBacklog: ReportBacklog
        /// The templates the scope already warned about.
        let templateWarnings: TemplateWarnings
        let configuration: Configuration
        let authentication: AuthenticationCoordinator?
        /// The scope's jar when its configuration uses cookies, else nil.
        let cookieJar: CookieJar?
        /// The scope's circuit breaker, when its configuration asks for one.
        let circuitBreaker: CircuitBreaker?
        /// The scope's rate limiter, when its configuration has limits.
        let rateLimiter: RateLimiter?
        /// The scope's coalescer, when its configuration asks for one.
        let coalescer: RequestCoalescer?
        /// The stage that counts the scope's calls in flight, when an `APIService` owns it.
        let admission: CallAdmission?
        /// The recorder of the configuration's `templateRecording`, if any.
        let templateRecorder: TemplateRecorder?
        /// What the scope's report-only validation already logged.
        let driftLog: ValidationDriftLog
    }

    private struct State {
        var configuration: Configuration
        /// Counts the changes of `configuration`: `configure` stores its result only if none
        /// came in between.
        var generation: UInt64 = 0
        var authentication: AuthenticationCoordinator?
        /// The breaker of `configuration.circuitBreaker`, made when first needed.
        var circuitBreaker: CircuitBreaker?
        /// The limiter of `configuration.rateLimit`, made when first needed.
        var rateLimiter: RateLimiter?
        /// The coalescer of `configuration.coalescing`, made when first needed.
        var coalescer: RequestCoalescer?
        /// The calls in flight, counted once an `APIService` owns the scope.
        var admission: CallAdmission?
        /// The recorder of `configuration.templateRecording`, made when first needed, and the
        /// redaction it was made with.
        var templateRecorder: (recorder: TemplateRecorder, redaction: Redaction)?

        /// The recorder of the configuration's recording, made now if the setting is new.
        mutating func currentRecorder() -> TemplateRecorder? {
            guard let recording = configuration.templateRecording else {
                templateRecorder = nil
                return nil
            }
            let redaction = configuration.redaction
            if let current = templateRecorder, current.recorder.recording == recording, current.redaction == redaction {
                return current.recorder
            }
            let recorder = TemplateRecorder(recording: recording, isSecret: { redaction.isSecret(parameter: $0) })
            templateRecorder = (recorder, redaction)
            return recorder
        }
    }

    /// The API's name, used in logs and error messages.
    public let name: String
    /// The API's cookies, in memory: used only while the configuration's `usesCookies` is true.
    public let cookieJar = CookieJar()
    /// The telemetry reports of the API's calls and refreshes not made yet.
    let reportBacklog = ReportBacklog()
    /// The missing or invalid templates already logged.
    let templateWarnings = TemplateWarnings()
    /// The validation failures report-only mode already logged.
    let driftLog = ValidationDriftLog()
    private let state: Locked<State>

    /// A scope named `name` (its logger is labelled `APILayer.<name>` unless `configuration`
    /// brings one of its own).
    public init(name: String, configuration: Configuration? = nil) {
        self.name = name
        var initial = configuration ?? Configuration()
        if configuration == nil { initial.logger = Logger(label: "APILayer.\(name)") }
        state = Locked(State(configuration: initial))
    }

    /// The scope's configuration (authentication apart).
    public var configuration: Configuration {
        get { state.withLock { $0.configuration } }
        set {
            state.withLock {
                $0.configuration = newValue
                $0.generation &+= 1
            }
        }
    }

    /// Changes parts of the configuration in one step: two `configure` calls at once both take
    /// effect. `update` runs outside the scope's lock (it may read the scope) and runs again, on
    /// the newer configuration, if another change landed while it ran.
    public func configure(_ update: (inout Configuration) -> Void) {
        while true {
            let (current, generation) = state.withLock { ($0.configuration, $0.generation) }
            var changed = current
            update(&changed)
            let stored = state.withLock { state -> Bool in
                guard state.generation == generation else { return false }
                state.configuration = changed
                state.generation &+= 1
                return true
            }
            if stored { return }
        }
    }

    /// The scope's name.
    public var description: String { "API \(name)" }

    /// `endpoint` joined to this API's base URL with exactly one `/` between them, as its
    /// methods' requests are; `nil` without a base URL. See `RequestConstructor.join(_:_:)`.
    public func url(appending endpoint: String) -> URL? {
        configuration.baseURL.flatMap { RequestConstructor.join($0, endpoint) }
    }

    var snapshot: Snapshot {
        state.withLock { state in
            // A breaker of the configured settings; a changed setting starts afresh.
            if state.configuration.circuitBreaker != state.circuitBreaker?.configuration {
                state.circuitBreaker = state.configuration.circuitBreaker.map(makeCircuitBreaker)
            }
            if state.configuration.rateLimit != state.rateLimiter?.configuration {
                state.rateLimiter = state.configuration.rateLimit.map(makeRateLimiter)
            }
            if state.configuration.coalescing != state.coalescer?.configuration {
                state.coalescer = state.configuration.coalescing.map(makeCoalescer)
            }
            return Snapshot(
                name: name, reportBacklog: reportBacklog, templateWarnings: templateWarnings, configuration: state.configuration,
                authentication: state.authentication,
                cookieJar: state.configuration.usesCookies ? cookieJar : nil, circuitBreaker: state.circuitBreaker,
                rateLimiter: state.rateLimiter, coalescer: state.coalescer, admission: state.admission,
                templateRecorder: state.currentRecorder(), driftLog: driftLog)
        }
    }

    /// The recorder of the configuration's `templateRecording` (the inferred templates so far,
    /// `flush()` to write them), or nil when the scope records nothing.
    public var templateRecorder: TemplateRecorder? {
        state.withLock { $0.currentRecorder() }
    }

    /// A coalescer that counts the calls that joined another's request, under this API's name.
    private func makeCoalescer(_ configuration: RequestCoalescer.Configuration) -> RequestCoalescer {
        let name = name
        return RequestCoalescer(configuration: configuration) { [weak self] request in
            guard let current = self?.configuration else { return }
            Counter(
                label: MetricLabel.coalescedRequests,
                dimensions: [(MetricDimension.api, name), (MetricDimension.method, request.httpMethod ?? "GET")],
                factory: current.resolvedMetricsFactory
            ).increment()
        }
    }

    /// A limiter that logs and counts the waits servers impose, under this API's name.
    private func makeRateLimiter(_ configuration: RateLimiter.Configuration) -> RateLimiter {
        let name = name
        return RateLimiter(configuration: configuration) { [weak self] wait in
            guard let current = self?.configuration else { return }
            current.logger.warning(
                "\(name) asked to wait \(Int(wait.seconds.rounded(.up))) s (\(wait.reason.rawValue)): its calls are parked until then",
                metadata: ["apilayer.api": "\(name)"])
            Counter(
                label: MetricLabel.rateLimitWaits, dimensions: [(MetricDimension.api, name), (MetricDimension.reason, wait.reason.rawValue)],
                factory: current.resolvedMetricsFactory
            ).increment()
        }
    }

    /// A breaker that logs and counts its circuits' changes under this API's name.
    private func makeCircuitBreaker(_ configuration: CircuitBreaker.Configuration) -> CircuitBreaker {
        let name = name
        return CircuitBreaker(configuration: configuration) { [weak self] transition in
            guard let current = self?.configuration else { return }
            let state: String
            switch transition.state {
            case let .open(seconds):
                state = "open"
                current.logger.warning(
                    "circuit of \(transition.origin) opened after repeated failures: calls fail at once for \(seconds < 10 ? String(format: "%.1f", seconds) : String(Int(seconds))) s",
                    metadata: ["apilayer.api": "\(name)"])
            case .halfOpen:
                state = "half_open"
                current.logger.info("circuit of \(transition.origin) half open: one probe goes", metadata: ["apilayer.api": "\(name)"])
            case .closed:
                state = "closed"
                current.logger.info("circuit of \(transition.origin) closed", metadata: ["apilayer.api": "\(name)"])
            }
            Counter(
                label: MetricLabel.circuitTransitions,
                dimensions: [(MetricDimension.api, name), (MetricDimension.origin, transition.origin), (MetricDimension.state, state)],
                factory: current.resolvedMetricsFactory
            ).increment()
        }
    }

    // MARK: Service

    /// The stage that counts the scope's calls from now on, made the first time a service
    /// takes the scope; the same one after.
    func admission() -> CallAdmission {
        state.withLock { state in
            if let admission = state.admission { return admission }
            let admission = CallAdmission(api: name)
            state.admission = admission
            return admission
        }
    }

    /// Whether the scope's calls are refused because its service is shutting down.
    public var isStopping: Bool { state.withLock { $0.admission.map { !$0.isAccepting } ?? false } }

    // MARK: Authentication

    /// The coordinator of the API's token, if authentication is set up.
    public var authentication: AuthenticationCoordinator? { state.withLock { $0.authentication } }

    /// Sets up the API's authentication: its operations carry the token (on its origins only),
    /// and any number of them failing with 401 at once cost one refresh. The stored token, if
    /// readable, is restored. A logout (`removeToken()`) empties the API's `HTTPCache`. A built-in OAuth authenticator without a `transport` of its own
    /// reaches its token endpoint as the API's calls go: on the scope's session, with its TLS
    /// settings and proxy (`TokenRequestTransport`).
    ///
    /// A store must belong to one API: two APIs sharing one would overwrite each other's saved
    /// token and, after a restart, both would load the same one. Such sharing is logged as an
    /// error (see `Docs/architecture.md`).
    ///
    /// - Returns: the coordinator, for callers that want to watch it.
    @discardableResult
    public func configureAuthentication(
        authenticator: any Authenticator,
        store: any TokenStore = InMemoryTokenStore(),
        configuration: AuthenticationCoordinator.Configuration = .init()
    ) -> AuthenticationCoordinator {
        let logger = self.configuration.logger
        if let other = TokenStoreClaims.shared.claim(store, for: self) {
            logger.error(
                "token store \(store.storeIdentity ?? "?") of API \(name) is already used by API \(other): each would overwrite the other's saved token, and after a restart both would load the same one; give each API its own store"
            )
        }
        // A logout empties the API's cache: what the account was answered does not outlive it.
        let coordinator = AuthenticationCoordinator(
            authenticator: authenticator, store: store, configuration: configuration,
            logger: logger, telemetry: RefreshTelemetry(api: name, scope: self.configuration, backlog: reportBacklog),
            onTokenRemoved: { [weak self] in self?.configuration.cache?.removeAll() },
            tokenRequestTransport: { [weak self] in self.map { TokenRequestTransport(scope: $0.configuration) } })
        state.withLock { $0.authentication = coordinator }
        return coordinator
    }

    /// Lets a plain NetOps operation carry this API's token, as the API's own operations do: the
    /// token goes where `placement` says, on requests to the API's origins only (its base URL's
    /// and the trusted ones, as configured now), and a 401 from them parks the operation until
    /// the one refresh. A request to any other origin goes without the token. Does nothing when
    /// authentication is not set up.
    ///
    /// ```swift
    /// let upload = UO.upload(photo, to: uploadURL)      // a host listed in trustedOrigins
    /// APIScope.photos.authorize(upload)
    /// ```
    public func authorize(_ operation: BaseOperation, placement: TokenPlacement = .authorizationHeader) {
        let snapshot = self.snapshot
        guard let coordinator = snapshot.authentication else { return }
        if let name = placement.parameterName { operation.redaction = operation.redaction.adding(parameters: [name]) }
        operation.use(
            ScopedAuthentication(
                coordinator: coordinator, placement: placement, origins: snapshot.configuration.origins,
                allowsInsecureTransport: snapshot.configuration.allowsInsecureTransport))
    }

    /// Turns the API's authentication off: its operations no longer carry a token.
    public func removeAuthentication() {
        state.withLock { $0.authentication = nil }
        TokenStoreClaims.shared.release(self)
    }
}
