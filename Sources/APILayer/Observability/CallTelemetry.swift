import Dispatch
import Foundation
import Instrumentation
import Logging
import Metrics
import NetOps
import NetOpsHTTP
import Tracing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one API call reports while it runs: its span and a child span per HTTP attempt, its
/// metrics, and a debug log line per request and response, all under one request ID.
///
/// NetOps calls it outside the operation's lock, often on the engine's callback thread — on
/// Linux one serial queue that every URLSession of the process shares. So only what a request
/// needs before it goes happens on the caller's thread (starting the call's and the attempt's
/// spans, injecting the trace context); every other tracer, metrics and logger call is queued,
/// in order, on the call's own reporting queue. A backend that is slow delays only its reports,
/// never a transfer. State lives in one lock, released before any report.
final class CallTelemetry: NetworkMiddleware, Sendable {
    /// The call's ID in log metadata and span attributes.
    let requestID: String
    private let api: String
    private let method: String
    /// The path template of the call's URL (`/v1/repos/{owner}/{repo}/issues`): OpenTelemetry's
    /// `url.template`, and the second word of each attempt span's name.
    private let urlTemplate: String?
    private let metrics: CallMetrics
    private let httpMetrics: HTTPClientMetrics
    private let tracer: any Tracer
    private let parent: ServiceContext
    private let logger: Logger
    private let redaction: Redaction
    private let state = Locked(State())
    /// Runs this call's reports in the order they happened; nil when nothing would record (no
    /// metrics backend, no tracer, a logger above `debug`): then nothing is queued at all.
    private let reporter: DispatchQueue?
    /// The reports of the API's calls not made yet.
    private let backlog: ReportBacklog

    /// Nothing would record what the call reports (see `reporter`). A silent call's telemetry
    /// joins no chain and hears of no end (`APIOperation.observe(with:)`); the call keeps its
    /// request ID, and its pipeline reports nothing (`PipelineReports`).
    var isSilent: Bool { reporter == nil }

    private struct State {
        var call: (any Span)?
        var claimed = false
        var startedAt: UInt64?
        var attempt: OpenAttempt?
        var attempts = 0
        var parked = false
        var lastStatus: Int?
        var ended = false
        /// The header fields the tracer wrote into the first request (its propagation fields).
        var contextHeaderNames: Set<String>?
    }

    /// An attempt whose span is open.
    private struct OpenAttempt: Sendable {
        let number: Int
        let span: any Span
        let sentAt: UInt64
        let httpMethod: String
        let url: URL?
        /// `http.request.method`, `server.address`, `server.port`, `url.scheme`: what the
        /// attempt's metrics are counted under before its answer adds to them.
        let dimensions: [(String, String)]
    }

    /// The queues of all calls' reports run here, side by side.
    private static let reporting = DispatchQueue(label: "APILayer.telemetry", qos: .utility, attributes: .concurrent)

    init(
        api: String, method: String, urlTemplate: @autoclosure () -> String? = nil, configuration: APIScope.Configuration, backlog: ReportBacklog,
        parent: ServiceContext
    ) {
        requestID = RequestID.next()
        self.backlog = backlog
        self.api = api
        self.method = method
        let factory = configuration.resolvedMetricsFactory
        metrics = CallMetrics(factory: factory, api: api, method: method)
        httpMetrics = HTTPClientMetrics(factory: factory)
        tracer = configuration.resolvedTracer
        self.parent = parent
        redaction = configuration.redaction
        var logger = configuration.logger
        // The call logs at debug and trace only: above those its logger never writes, and its
        // metadata is not set (a handler may do work on every change of its metadata:
        // swift-log's StreamLogHandler renders it anew, 4 % of a cached call's time). When
        // set, it is set in one assignment.
        if logger.logLevel <= .debug {
            var metadata = logger.handler.metadata
            metadata[LogMetadataKey.requestID] = .string(requestID)
            metadata[LogMetadataKey.api] = .string(api)
            metadata[LogMetadataKey.method] = .string(method)
            logger.handler.metadata = metadata
        }
        self.logger = logger
        let silent = factory is NOOPMetricsHandler && tracer is NoOpTracer && logger.logLevel > .debug
        reporter = silent ? nil : DispatchQueue(label: "APILayer.telemetry.call", target: Self.reporting)
        // A silent call names no span: its template is not even made.
        self.urlTemplate = silent ? nil : urlTemplate()
    }

    /// The context of the call's span, once it started: the parent of work done for it (a
    /// token refresh).
    var spanContext: ServiceContext? { state.withLock { $0.call?.context } }

    /// Queues `work` behind the call's earlier reports.
    private func report(_ work: @escaping @Sendable () -> Void) {
        guard let reporter else { return }
        backlog.add()
        reporter.async { [backlog] in
            work()
            backlog.remove()
        }
    }

    /// Returns once every report queued so far ran.
    func reported() async {
        guard let reporter else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in reporter.async { done.resume() } }
    }

    // MARK: NetworkMiddleware

    func operationWillStart(_ operation: BaseOperation) {
        // The pipeline reports what it checked to whoever listens (`PipelineReports`).
        operation.values.update(PipelineReports.self) { reports in
            if reports == nil { reports = [] }
        }
        let claimed = state.withLock { state -> Bool in
            guard !state.claimed, !state.ended else { return false }
            state.claimed = true
            state.startedAt = Self.now()
            return true
        }
        guard claimed else { return }
        // Started here: the attempts' spans and the refresh need its context.
        let span = tracer.startSpan("\(api) \(method)", context: parent, ofKind: .internal)
        let started = SpanEvent(name: SpanEventName.started)
        let endedMeanwhile = state.withLock { state -> Bool in
            state.call = span
            return state.ended
        }
        report { [api, method, requestID] in
            span.attributes[SpanAttributeKey.api] = api
            span.attributes[SpanAttributeKey.method] = method
            span.attributes[SpanAttributeKey.requestID] = requestID
            span.addEvent(started)
            if endedMeanwhile { span.end() }
        }
    }

    /// The innermost of the call's stages: the request is about to go as it is now, so the
    /// attempt's span starts here and its context goes into the request's headers.
    func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
        let (sent, contextHeaders) = willSend(request, attempt: context.attempt)
        request = sent
        // The tracer's fields, once known: a cache or a coalescer leaves them out of its key.
        if let contextHeaders, !contextHeaders.isEmpty {
            context.values.update(ContextHeaderNames.self) { names in names = (names ?? []).union(contextHeaders) }
        }
        return .proceed
    }

    /// The first to judge: records the attempt as the transfer left it (the error classified by
    /// connectivity), whatever the stages after decide.
    func judge(_ outcome: AttemptOutcome, verdict: inout Verdict, context: MiddlewareContext) throws {
        let error: NetOpsError? = if case let .fail(failure) = verdict { failure as? NetOpsError ?? outcome.error } else { outcome.error }
        didFinish(
            AttemptReport(
                attempt: context.attempt, status: outcome.statusCode, error: error, bytesSent: outcome.bytesSent,
                bytesReceived: outcome.bytesReceived, coalesced: context.values[RequestCoalescer.JoinedKey.self] ?? false,
                cache: context.values[HTTPCache.OutcomeKey.self], protocolVersion: outcome.networkProtocolVersion))
    }

    func operationDidPark(_ operation: BaseOperation, in lot: ParkingLot) {
        didPark()
    }

    /// A run ended: what the pipeline checked in it goes on the call's span.
    func operationDidStopRunning(_ operation: BaseOperation) {
        let reports = operation.values.update(PipelineReports.self) { reports -> [PipelineReport] in
            defer { if reports != nil { reports = [] } }
            return reports ?? []
        }
        for report in reports { pipelineChecked(passed: report.passed, failedStage: report.failedStage) }
    }

    /// The call ended: its span and metrics close, after its result was fixed.
    func operationDidFinish(_ operation: BaseOperation) {
        let failure = (operation as? any CallResultHolder)?.callFailure
        finish(failure: failure, operationError: operation.error)
    }

    /// The request as it goes, with the trace context in its headers, and the names of the
    /// fields the tracer wrote (the first time only; nil after).
    private func willSend(_ request: URLRequest, attempt: Int) -> (URLRequest, Set<String>?) {
        let sentAt = Self.now()
        let instant = DefaultTracerClock.now
        let (previous, call, wasParked) = state.withLock { state -> (OpenAttempt?, (any Span)?, Bool) in
            defer {
                state.attempt = nil
                state.parked = false
                state.attempts = max(state.attempts, attempt)
            }
            return (state.attempt, state.call, state.parked)
        }
        let httpMethod = request.httpMethod ?? "GET"
        // OpenTelemetry's name of an HTTP client span: `{method} {url.template}`, or the method
        // alone when there is no template (an adopted operation).
        let span = tracer.startSpan(urlTemplate.map { "\(httpMethod) \($0)" } ?? httpMethod, context: call?.context ?? parent, ofKind: .client)
        var sent = request
        tracer.inject(span.context, into: &sent, using: HeaderInjector())
        let open = OpenAttempt(
            number: attempt, span: span, sentAt: sentAt, httpMethod: httpMethod, url: request.url,
            dimensions: HTTPClientMetrics.dimensions(method: httpMethod, url: request.url))
        let (ended, contextHeaders) = state.withLock { state -> (Bool, Set<String>?) in
            var named: Set<String>?
            if state.contextHeaderNames == nil {
                let before = request.allHTTPHeaderFields ?? [:]
                let names = Set((sent.allHTTPHeaderFields ?? [:]).filter { before[$0.key] != $0.value }.keys.map { $0.lowercased() })
                state.contextHeaderNames = names
                named = names
            }
            guard !state.ended else { return (true, named) }
            state.attempt = open
            return (false, named)
        }
        let events = [
            wasParked
                ? SpanEvent(name: SpanEventName.replayed)
                : attempt > 1
                    ? SpanEvent(name: SpanEventName.retried, attributes: [SpanAttributeKey.attempt: .int64(Int64(attempt))])
                    : nil,
            SpanEvent(name: SpanEventName.sent, attributes: [SpanAttributeKey.attempt: .int64(Int64(attempt))]),
        ].compactMap { $0 }
        let headers = sent.allHTTPHeaderFields ?? [:]
        report { [self] in
            if let previous { close(previous, status: nil, errorType: "interrupted", protocolVersion: nil, at: instant, endedAt: sentAt) }
            if wasParked { metrics.parked(-1) }
            httpMetrics.started(open.dimensions)
            describe(span, request: request, attempt: attempt)
            for event in events { call?.addEvent(event) }
            if attempt > 1 { metrics.resent(reason: wasParked ? "replay" : "retry") }
            logger.debug("request \(httpMethod) \(shown(request.url))", metadata: [LogMetadataKey.attempt: "\(attempt)"])
            logger.trace(
                "request headers",
                metadata: [
                    LogMetadataKey.attempt: "\(attempt)",
                    LogMetadataKey.headers: .dictionary(redaction.headers(headers).mapValues { .string($0) }),
                ])
            if ended { close(open, status: nil, errorType: "cancelled", protocolVersion: nil, at: instant, endedAt: sentAt) }
        }
        return (sent, contextHeaders)
    }

    private func didFinish(_ report: AttemptReport) {
        let finishedAt = Self.now()
        let instant = DefaultTracerClock.now
        let status = report.status
        let (open, call) = state.withLock { state -> (OpenAttempt?, (any Span)?) in
            if let status { state.lastStatus = status }
            guard let open = state.attempt, open.number == report.attempt else { return (nil, state.call) }
            state.attempt = nil
            return (open, state.call)
        }
        var attributes: SpanAttributes = [SpanAttributeKey.attempt: .int64(Int64(report.attempt))]
        if let status { attributes[SpanAttributeKey.statusCode] = status }
        let event = SpanEvent(name: SpanEventName.responded, attributes: attributes)
        self.report { [self] in
            metrics.transferred(sent: report.bytesSent, received: report.bytesReceived)
            guard let open else { return }
            if report.coalesced { open.span.attributes[SpanAttributeKey.coalesced] = true }
            if let cache = report.cache {
                open.span.attributes[SpanAttributeKey.cache] = cache.rawValue
                metrics.cacheLookup(cache)
            }
            close(
                open, status: status, errorType: Self.errorType(status: status, error: report.error),
                protocolVersion: report.protocolVersion, at: instant, endedAt: finishedAt)
            call?.addEvent(event)
            let milliseconds = Self.milliseconds(from: open.sentAt, to: finishedAt)
            if let status {
                logger.debug(
                    "response \(status) \(open.httpMethod) \(shown(open.url)) in \(milliseconds) ms, \(report.bytesReceived) bytes received, \(report.bytesSent) sent",
                    metadata: [LogMetadataKey.attempt: "\(open.number)"])
            } else {
                logger.debug(
                    "no response \(open.httpMethod) \(shown(open.url)) after \(milliseconds) ms: \(report.error.map { redaction.text($0.description) } ?? "no response")",
                    metadata: [LogMetadataKey.attempt: "\(open.number)"])
            }
        }
    }

    private func didPark() {
        let (call, newlyParked) = state.withLock { state -> ((any Span)?, Bool) in
            defer { state.parked = true }
            return (state.call, !state.parked)
        }
        guard newlyParked else { return }
        let event = SpanEvent(name: SpanEventName.postponed)
        report { [self] in
            metrics.parked(1)
            call?.addEvent(event)
            logger.debug("postponed until a fresh token")
        }
    }

    // MARK: The call's stages and end

    /// The pipeline judged the response: the stages it passed, and the one it failed at.
    private func pipelineChecked(passed stages: [PipelineStage], failedStage: String?) {
        guard !isSilent else { return }
        let call = state.withLock { $0.call }
        var attributes: SpanAttributes = [:]
        if let failedStage { attributes[SpanAttributeKey.stage] = failedStage }
        let events = stages.map { SpanEvent(name: $0.rawValue) } + [SpanEvent(name: SpanEventName.checked, attributes: attributes)]
        report {
            for event in events { call?.addEvent(event) }
        }
    }

    /// The call ended with `failure` (nil: success). Called once, after the operation's result
    /// was fixed.
    func finish(failure: APIError?, operationError: NetOpsError?) {
        let endedAt = Self.now()
        let instant = DefaultTracerClock.now
        struct Taken: Sendable {
            var open: OpenAttempt?
            var call: (any Span)?
            var startedBefore: Bool
            var startedAt: UInt64?
            var wasParked: Bool
            var status: Int?
            var attempts: Int
        }
        let taken = state.withLock { state -> Taken? in
            guard !state.ended else { return nil }
            defer {
                state.ended = true
                state.attempt = nil
                state.parked = false
                state.claimed = true
                state.call = nil  // the span is ended below; nothing refers to it after
            }
            return Taken(
                open: state.attempt, call: state.call, startedBefore: state.claimed, startedAt: state.startedAt,
                wasParked: state.parked, status: state.lastStatus, attempts: state.attempts)
        }
        guard let taken else { return }
        let outcome: CallOutcome
        if failure == nil {
            outcome = .success
        } else if case .cancelled? = operationError?.kind {
            outcome = .cancelled
        } else {
            outcome = .failure
        }
        // A call that never started (cancelled before, or failed at construction) still gets its span.
        let span = taken.call ?? (taken.startedBefore ? nil : tracer.startSpan("\(api) \(method)", context: parent, ofKind: .internal))
        let neverStarted = taken.call == nil && !taken.startedBefore
        report { [self] in
            if taken.wasParked { metrics.parked(-1) }
            if let open = taken.open {
                close(
                    open, status: nil, errorType: operationError.map { Self.errorType(status: nil, error: $0) } ?? "interrupted",
                    protocolVersion: nil, at: instant, endedAt: endedAt)
            }
            metrics.callEnded(
                outcome: outcome, status: taken.status,
                nanoseconds: taken.startedAt.map { Int64(clamping: endedAt &- $0) },
                failedStage: outcome == .failure ? failure?.stageName : nil)
            let description = failure.map { $0.description }
            let elapsed = taken.startedAt.map { " in \(Self.milliseconds(from: $0, to: endedAt)) ms" } ?? ""
            switch outcome {
            case .success: logger.debug("call succeeded\(elapsed)")
            case .cancelled: logger.debug("call cancelled\(elapsed)")
            case .failure: logger.debug("call failed\(elapsed): \(description ?? "")")
            }
            // Last: once the call's span ended, every report of the call was made.
            guard let span else { return }
            if neverStarted {
                span.attributes[SpanAttributeKey.api] = api
                span.attributes[SpanAttributeKey.method] = method
                span.attributes[SpanAttributeKey.requestID] = requestID
            }
            span.attributes[SpanAttributeKey.outcome] = outcome.rawValue
            span.attributes[SpanAttributeKey.attempts] = taken.attempts
            if let status = taken.status { span.attributes[SpanAttributeKey.statusCode] = status }
            if let failure, outcome != .success {
                span.attributes[SpanAttributeKey.stage] = failure.stageName
                span.attributes[SpanAttributeKey.errorType] = outcome == .cancelled ? "cancelled" : failure.stageName
                span.addEvent(SpanEvent(name: SpanEventName.failed, at: instant, attributes: [SpanAttributeKey.stage: .string(failure.stageName)]))
                span.setStatus(SpanStatus(code: .error, message: description))
            }
            span.end(at: instant)
        }
    }

    // MARK: Helpers

    /// The OpenTelemetry HTTP client attributes of an attempt's span.
    private func describe(_ span: any Span, request: URLRequest, attempt: Int) {
        guard span.isRecording else { return }
        span.attributes[SpanAttributeKey.httpMethod] = request.httpMethod ?? "GET"
        if let urlTemplate { span.attributes[SpanAttributeKey.urlTemplate] = urlTemplate }
        if let url = request.url {
            span.attributes[SpanAttributeKey.urlFull] = redaction.urlWithoutQuery(url)
            if let scheme = url.scheme { span.attributes[SpanAttributeKey.urlScheme] = scheme }
            if let host = url.host { span.attributes[SpanAttributeKey.serverAddress] = host }
            if let port = url.port ?? url.scheme.flatMap({ Origin.defaultPort(of: $0.lowercased()) }) {
                span.attributes[SpanAttributeKey.serverPort] = port
            }
        }
        if attempt > 1 { span.attributes[SpanAttributeKey.resendCount] = attempt - 1 }
        span.attributes[SpanAttributeKey.attempt] = attempt
    }

    /// The URL as a log line shows it: redacted.
    private func shown(_ url: URL?) -> String {
        url.map(redaction.url) ?? "<no URL>"
    }

    /// Ends the attempt's span and records it in OpenTelemetry's HTTP client metrics.
    private func close(
        _ attempt: OpenAttempt, status: Int?, errorType: String?, protocolVersion: String?, at instant: DefaultTracerClock.Instant,
        endedAt: UInt64
    ) {
        httpMetrics.ended(
            attempt.dimensions, status: status, errorType: errorType, protocolVersion: protocolVersion,
            nanoseconds: Int64(clamping: endedAt &- attempt.sentAt))
        if let protocolVersion { attempt.span.attributes[SpanAttributeKey.protocolVersion] = protocolVersion }
        if let status { attempt.span.attributes[SpanAttributeKey.statusCode] = status }
        if let errorType {
            attempt.span.attributes[SpanAttributeKey.errorType] = errorType
            attempt.span.setStatus(SpanStatus(code: .error))
        }
        attempt.span.end(at: instant)
    }

    /// OpenTelemetry's `error.type`: the status code of a 4xx or 5xx answer, else the kind of
    /// transport failure; nil for a success.
    static func errorType(status: Int?, error: NetOpsError?) -> String? {
        if let status, status >= 400 { return String(status) }
        guard let error else { return nil }
        if case let .httpStatus(code) = error.kind { return String(code) }
        return error.kind.name
    }

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    private static func milliseconds(from start: UInt64, to end: UInt64) -> String {
        String(format: "%.1f", Double(end &- start) / 1e6)
    }
}

/// Keys of the metadata on an API call's log lines.
enum LogMetadataKey {
    static let requestID = "apilayer.request_id"
    static let api = "apilayer.api"
    static let method = "apilayer.method"
    static let attempt = "apilayer.attempt"
    static let headers = "apilayer.headers"
}

/// How one attempt of a call ended, as its telemetry records it.
struct AttemptReport: Sendable {
    /// 1 for the first request the operation sent; retries and replays count on.
    let attempt: Int
    /// The status of the response, when one arrived.
    let status: Int?
    /// The attempt's failure (classified), nil for an accepted answer.
    let error: NetOpsError?
    /// Request body bytes sent.
    let bytesSent: Int64
    /// Response body bytes received in this attempt.
    let bytesReceived: Int64
    /// The attempt joined an identical request in flight (`RequestCoalescer`).
    let coalesced: Bool
    /// How the API's HTTP cache took part, when it has one.
    let cache: HTTPCache.Outcome?
    /// `network.protocol.version` of the response, when the engine says.
    let protocolVersion: String?
}

/// What an API call's pipeline checked on an accepted answer: the stages it passed, and the one
/// it failed at.
struct PipelineReport: Sendable {
    let passed: [PipelineStage]
    let failedStage: String?
}

/// The pipeline's reports of a call not yet on its span: present (empty) once the call's
/// telemetry listens, so a call nobody observes makes none.
enum PipelineReports: CallValueKey {
    typealias Value = [PipelineReport]
}

/// An operation that knows how its API call ended: the `APIError` of the stage that failed.
protocol CallResultHolder {
    /// The failure the call ended with; nil for a success (or before the end).
    var callFailure: APIError? { get }
}
