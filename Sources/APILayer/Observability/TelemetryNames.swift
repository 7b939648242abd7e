/// The names APILayer reports under: metric labels, their dimensions, span names, attributes
/// and events. `Docs/observability.md` lists each with its meaning; a dashboard or an alert
/// may rely on them.
enum MetricLabel {
    /// Counter: one per call when it ends. Dimensions: api, method, status_class, outcome.
    static let requests = "apilayer.requests"
    /// Timer: a call's time from start to end, in nanoseconds. Dimensions: api, method, outcome.
    static let duration = "apilayer.request.duration"
    /// Counter: calls that failed, by pipeline stage. Dimensions: api, method, stage.
    static let failures = "apilayer.failures"
    /// Counter: requests sent again. Dimensions: api, method, reason (`retry`, `replay`).
    static let retries = "apilayer.retries"
    /// Counter: token refreshes. Dimensions: api, outcome (`success`, `failure`).
    static let refreshes = "apilayer.token.refreshes"
    /// Meter: operations parked now, waiting for a fresh token. Dimensions: api.
    static let parked = "apilayer.operations.parked"
    /// Counter: request body bytes sent. Dimensions: api, method.
    static let bytesSent = "apilayer.bytes.sent"
    /// Counter: response body bytes received. Dimensions: api, method.
    static let bytesReceived = "apilayer.bytes.received"
    /// Counter: changes of a circuit of the API's breaker. Dimensions: api, origin, state
    /// (`open`, `half_open`, `closed`).
    static let circuitTransitions = "apilayer.circuit.transitions"
    /// Counter: waits a server imposed on the API (`Retry-After`, an exhausted budget).
    /// Dimensions: api, reason (`retryAfter`, `budgetExhausted`).
    static let rateLimitWaits = "apilayer.ratelimit.waits"
    /// Counter: calls that joined an identical request in flight instead of sending their own.
    /// Dimensions: api, method.
    static let coalescedRequests = "apilayer.coalesced.requests"
    /// Counter: requests that went through the API's HTTP cache. Dimensions: api, method,
    /// outcome (`hit`, `revalidated`, `miss`, `bypass`).
    static let cacheLookups = "apilayer.cache.lookups"
    /// Counter: validation errors of responses in report-only mode (`ValidationMode.reportOnly`).
    /// Dimensions: api, method, rule, pointer (array indexes as `*`).
    static let validationFailures = "apilayer.validation.failures"
}

/// OpenTelemetry's HTTP client metrics (semantic conventions 1.26+, stable): the names
/// dashboards and alert rules for any HTTP client expect, beside APILayer's own per-call ones.
enum OTelMetricLabel {
    /// Timer recorded per attempt (swift-metrics records nanoseconds; its display unit is
    /// seconds, and swift-otel exports a Timer as a histogram in seconds). Dimensions:
    /// `http.request.method`, `server.address`, `server.port`, `url.scheme`, and, when known,
    /// `http.response.status_code`, `error.type`, `network.protocol.version`.
    static let requestDuration = "http.client.request.duration"
    /// Meter (up-down): attempts in flight now. Dimensions: `http.request.method`,
    /// `server.address`, `server.port`, `url.scheme`.
    static let activeRequests = "http.client.active_requests"
}

/// Dimension keys of the metrics: all of low cardinality (never a URL, an ID or a token).
enum MetricDimension {
    static let api = "api"
    static let method = "method"
    static let statusClass = "status_class"
    static let outcome = "outcome"
    static let stage = "stage"
    static let reason = "reason"
    static let origin = "origin"
    static let state = "state"
    static let rule = "rule"
    static let pointer = "pointer"
}

/// Span attribute keys: the OpenTelemetry HTTP client conventions, and APILayer's own.
enum SpanAttributeKey {
    static let httpMethod = "http.request.method"
    static let statusCode = "http.response.status_code"
    static let resendCount = "http.request.resend_count"
    static let urlFull = "url.full"
    static let serverAddress = "server.address"
    static let serverPort = "server.port"
    static let errorType = "error.type"
    static let urlTemplate = "url.template"
    static let urlScheme = "url.scheme"
    static let protocolVersion = "network.protocol.version"
    static let api = "apilayer.api"
    static let method = "apilayer.method"
    static let requestID = "apilayer.request_id"
    static let outcome = "apilayer.outcome"
    static let stage = "apilayer.failure.stage"
    static let attempt = "apilayer.attempt"
    static let attempts = "apilayer.attempts"
    /// On an attempt span: the attempt joined an identical request in flight.
    static let coalesced = "apilayer.coalesced"
    /// On an attempt span: how the API's HTTP cache took part (`hit`, `revalidated`, `miss`,
    /// `bypass`).
    static let cache = "apilayer.cache"
}

/// Events on a call's span, one per stage it passed.
enum SpanEventName {
    static let started = "started"
    static let sent = "request.sent"
    static let responded = "response.received"
    static let postponed = "postponed"
    static let replayed = "replayed"
    static let retried = "retried"
    static let checked = "response.checked"
    static let failed = "failed"
}

/// The outcome of a call, as a dimension and an attribute.
enum CallOutcome: String {
    case success, failure, cancelled
}

/// `2xx`…`5xx`, or `none` when no response came.
func statusClass(_ status: Int?) -> String {
    guard let status, (100..<600).contains(status) else { return "none" }
    return "\(status / 100)xx"
}
