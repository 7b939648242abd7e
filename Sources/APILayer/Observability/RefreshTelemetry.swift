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

    init(api: String, metricsFactory: (any MetricsFactory)? = nil, tracer: (any Tracer)? = nil, redaction: Redaction = .standard) {
        self.api = api
        self.metricsFactory = metricsFactory
        self.tracer = tracer
        self.redaction = redaction
    }

    init(api: String, scope configuration: APIScope.Configuration) {
        self.init(api: api, metricsFactory: configuration.metricsFactory, tracer: configuration.tracer,
                  redaction: configuration.redaction)
    }

    /// A span for one refresh, under `parent` (the call that started it) when known.
    func startRefreshSpan(parent: ServiceContext?) -> any Span {
        let span = (tracer ?? InstrumentationSystem.tracer)
            .startSpan("\(api) token refresh", context: parent ?? ServiceContext.current ?? .topLevel, ofKind: .internal)
        span.attributes[SpanAttributeKey.api] = api
        return span
    }

    /// Ends a refresh's span and counts it.
    func refreshEnded(_ span: any Span, failure: String?) {
        if let failure {
            span.attributes[SpanAttributeKey.errorType] = "refreshFailed"
            span.setStatus(SpanStatus(code: .error, message: redaction.text(failure)))
        }
        span.end()
        CallMetrics.refreshed(api: api, succeeded: failure == nil, factory: metricsFactory ?? MetricsSystem.factory)
    }
}

/// An operation whose call has a span: work started for it (a refresh) becomes its child.
protocol TraceContextHolder {
    /// The context of the call's span, once it started.
    var traceContext: ServiceContext? { get }
}
