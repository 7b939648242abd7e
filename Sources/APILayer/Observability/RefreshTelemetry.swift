import Dispatch
import Instrumentation
import Metrics
import NetOps
import Tracing

/// Where a coordinator reports its token refreshes: the API's name, metrics factory and tracer
/// (nil ones resolved to the global systems when a refresh runs).
struct RefreshTelemetry: Sendable {
    let api: String
    let metricsFactory: (any MetricsFactory)?
    let tracer: (any Tracer)?
    let redaction: Redaction
    /// The API's reports not made yet.
    let backlog: ReportBacklog

    init(
        api: String, metricsFactory: (any MetricsFactory)? = nil, tracer: (any Tracer)? = nil, redaction: Redaction = .standard,
        backlog: ReportBacklog = ReportBacklog()
    ) {
        self.api = api
        self.backlog = backlog
        self.metricsFactory = metricsFactory
        self.tracer = tracer
        self.redaction = redaction
    }

    init(api: String, scope configuration: APIScope.Configuration, backlog: ReportBacklog) {
        self.init(
            api: api, metricsFactory: configuration.metricsFactory, tracer: configuration.tracer,
            redaction: configuration.redaction, backlog: backlog)
    }

    /// A span for one refresh, under `parent` (the call that started it) when known.
    func startRefreshSpan(parent: ServiceContext?) -> any Span {
        let span = (tracer ?? InstrumentationSystem.tracer)
            .startSpan("\(api) token refresh", context: parent ?? ServiceContext.current ?? .topLevel, ofKind: .internal)
        span.attributes[SpanAttributeKey.api] = api
        return span
    }

    /// Ends a refresh's span and counts it, on a reporting queue: the parked operations are
    /// replayed at once, whatever the backends take.
    func refreshEnded(_ span: any Span, failure: String?) {
        let instant = DefaultTracerClock.now
        let factory = metricsFactory ?? MetricsSystem.factory
        backlog.add()
        DispatchQueue.global(qos: .utility).async { [self] in
            if let failure {
                span.attributes[SpanAttributeKey.errorType] = "refreshFailed"
                span.setStatus(SpanStatus(code: .error, message: redaction.text(failure)))
            }
            CallMetrics.refreshed(api: api, succeeded: failure == nil, factory: factory)
            span.end(at: instant)
            backlog.remove()
        }
    }
}

/// An operation whose call has a span: work started for it (a refresh) becomes its child.
protocol TraceContextHolder {
    /// The context of the call's span, once it started.
    var traceContext: ServiceContext? { get }
}
