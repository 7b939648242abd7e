import APILayer
import DemoServer
import Foundation
import InMemoryTracing
import Instrumentation
import Logging
import Metrics
import MetricsTestKit
import NetOps
import TestSupport
import Testing
import Tracing
import Validator

/// Any JSON answer, unread.
private struct JSONValueAnswer: Decodable, Sendable {
    init(from decoder: any Decoder) throws {}
}

/// What DemoServer's `/echo` saw.
private struct Seen: Decodable, Sendable {
    var query: [String: String]
    var headers: [String: String]
}

/// Methods of the default API (each test binds its own scope with `withDefaultAPI`).
private enum ObservedAPI: String, APIMethod {
    case echo
    case protected
    case protectedInQuery = "protected-in-query"
    case missing
    case delay
    case stats

    var path: String {
        switch self {
        case .stats: return "counted-stats/{key}"
        case .echo: return "echo"
        case .delay: return "delay"
        case .protected, .protectedInQuery: return "realm/{realm}/protected"
        case .missing: return "status/404"
        }
    }
    var httpMethod: HTTPMethod { .get }
    var encoding: RequestEncoding { .query }
    var defaultParameters: Parameters { [:] }
    var validation: ValidationPolicy { .custom { _ in [] } }
    var tokenPlacement: TokenPlacement? {
        self == .protectedInQuery ? .queryParameter("access_token") : .authorizationHeader
    }
}

/// One API with its own metrics, tracer and log capture: nothing process-wide is bootstrapped.
private struct Observed {
    let scope: APIScope
    let metrics = TestMetrics()
    let tracer = InMemoryTracer()
    let capture = LogCapture()
    let realm: String

    init(server: DemoServer, name: String = "observed", engine: TestEngine = .urlSession) {
        realm = "obs\(UUID().uuidString.prefix(8))"
        let configuration = APIScope.Configuration(
            baseURL: server.baseURL, session: engine.session, logger: capture.logger(),
            metricsFactory: metrics, tracer: tracer)
        scope = APIScope(name: name, configuration: configuration)
    }

    /// Sets up a token the realm never issued: the first request gets a 401.
    @discardableResult
    func authenticate(server: DemoServer) -> AuthenticationCoordinator {
        scope.configureAuthentication(
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: server.tokenURL(realm: realm)),
            store: InMemoryTokenStore(Token(accessToken: "stale-\(realm)", refreshToken: "seed-\(realm)")))
    }

    /// The total of the counters named `label` whose dimensions include `dimensions`.
    func total(_ label: String, _ dimensions: [String: String] = [:]) -> Int64 {
        metrics.counters(label: label).filter { counter in
            let own = Dictionary(counter.dimensions, uniquingKeysWith: { first, _ in first })
            return dimensions.allSatisfy { own[$0.key] == $0.value }
        }.reduce(0) { $0 + $1.totalValue }
    }
}

@Suite("Observability", .processGate(.shared, minutes: 2))
struct ObservabilityTests {
    /// The dimensions of `http.client.active_requests` for a GET to `server`.
    static func activeDimensions(_ server: DemoServer) -> [(String, String)] {
        [
            ("http.request.method", "GET"), ("server.address", "127.0.0.1"), ("server.port", String(server.baseURL.port ?? 0)),
            ("url.scheme", "http"),
        ]
    }

    /// A call that gets a 401, one refresh and a replay: the call's span holds two attempts and
    /// the refresh, with the OpenTelemetry HTTP attributes, and its stages as events.
    @Test(arguments: TestEngine.allCases)
    func aRefreshAndReplayGiveTheExpectedSpanTree(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let observed = Observed(server: server, engine: engine)
        let coordinator = observed.authenticate(server: server)
        let operation = APIManager.withDefaultAPI(observed.scope) {
            APIManager.operation(ObservedAPI.protected, properties: ["realm": observed.realm], as: Granted.self)
        }
        let granted = try await operation.run()
        await operation.telemetryReported()
        #expect(granted.ok)
        #expect(coordinator.refreshCount == 1)

        // The refresh reports on a queue of its own.
        let tracer = observed.tracer
        #expect(await eventually { tracer.finishedSpans.contains { $0.operationName == "observed token refresh" } })
        let spans = observed.tracer.finishedSpans
        let call = try #require(spans.first { $0.operationName == "observed protected" })
        #expect(call.parentSpanID == nil)
        #expect(call.attributes["apilayer.api"]?.toSpanAttribute() == "observed")
        #expect(call.attributes["apilayer.outcome"]?.toSpanAttribute() == "success")
        #expect(call.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
        #expect(call.status == nil)
        let events = call.events.map(\.name)
        #expect(
            events == [
                "started", "request.sent", "response.received", "postponed", "replayed", "request.sent",
                "response.received", "response.parsed", "response.validated", "response.mapped", "response.checked",
            ])

        let children = spans.filter { $0.parentSpanID == call.spanID && $0.traceID == call.traceID }
        // OpenTelemetry's name of an HTTP client span: `{method} {url.template}`.
        let attempts = children.filter { $0.operationName == "GET /realm/{realm}/protected" }
        #expect(attempts.count == 2)
        let first = try #require(attempts.first { $0.attributes["apilayer.attempt"]?.toSpanAttribute() == 1 })
        let second = try #require(attempts.first { $0.attributes["apilayer.attempt"]?.toSpanAttribute() == 2 })
        #expect(first.kind == .client)
        #expect(first.attributes["http.request.method"]?.toSpanAttribute() == "GET")
        #expect(first.attributes["http.response.status_code"]?.toSpanAttribute() == 401)
        #expect(first.attributes["error.type"]?.toSpanAttribute() == "401")
        #expect(first.attributes["http.request.resend_count"] == nil)
        #expect(first.attributes["server.address"]?.toSpanAttribute() == "127.0.0.1")
        #expect(first.attributes["url.template"]?.toSpanAttribute() == "/realm/{realm}/protected")
        #expect(first.attributes["url.scheme"]?.toSpanAttribute() == "http")
        // Only the NIO engine knows the version: FoundationNetworking does not tell it.
        #expect(first.attributes["network.protocol.version"]?.toSpanAttribute() == (engine == .nio ? "1.1" : nil))
        #expect(
            first.attributes["url.full"]?.toSpanAttribute()
                == .string(server.baseURL.appendingPathComponent("realm/\(observed.realm)/protected").absoluteString))
        #expect(second.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
        #expect(second.attributes["http.request.resend_count"]?.toSpanAttribute() == 1)
        #expect(second.attributes["error.type"] == nil)
        let refresh = try #require(children.first { $0.operationName == "observed token refresh" })
        #expect(refresh.status == nil)
        #expect(children.count == 3)

        // The same story in the metrics.
        #expect(observed.total("apilayer.requests", ["api": "observed", "method": "protected", "status_class": "2xx", "outcome": "success"]) == 1)
        #expect(observed.total("apilayer.retries", ["reason": "replay"]) == 1)
        #expect(observed.total("apilayer.token.refreshes", ["api": "observed", "outcome": "success"]) == 1)
        #expect(try observed.metrics.expectMeter("apilayer.operations.parked", [("api", "observed")]).lastValue == 0)
        #expect(observed.total("apilayer.bytes.received") > 0)
        #expect(observed.metrics.timers(label: "apilayer.request.duration").count == 1)
        // OpenTelemetry's HTTP client metrics: one duration per attempt, none in flight after.
        let durations = observed.metrics.timers(label: "http.client.request.duration")
        #expect(durations.map(\.values.count).reduce(0, +) == 2)
        let unauthorized = try #require(durations.first { $0.dimensions.contains { $0 == ("http.response.status_code", "401") } })
        let expected = [("http.request.method", "GET"), ("server.address", "127.0.0.1"), ("url.scheme", "http"), ("error.type", "401")]
        #expect(expected.allSatisfy { pair in unauthorized.dimensions.contains { $0 == pair } })
        #expect(unauthorized.dimensions.contains { $0.0 == "server.port" })
        #expect(try observed.metrics.expectMeter("http.client.active_requests", Self.activeDimensions(server)).lastValue == 0)
        // No dimension carries a URL, an ID or a token; only OpenTelemetry's `server.address`
        // names the host.
        let apilayerMetrics =
            observed.metrics.counters.filter { $0.label.hasPrefix("apilayer.") }.flatMap(\.dimensions)
            + observed.metrics.timers.filter { $0.label.hasPrefix("apilayer.") }.flatMap(\.dimensions)
        #expect(!apilayerMetrics.isEmpty)
        #expect(!apilayerMetrics.map(\.1).contains { $0.contains(observed.realm) || $0.contains("127.0.0.1") || $0.contains("stale-") })
        let allValues = (observed.metrics.counters.flatMap(\.dimensions) + observed.metrics.timers.flatMap(\.dimensions)).map(\.1)
        #expect(!allValues.contains { $0.contains(observed.realm) || $0.contains("stale-") || $0.contains("/") })
    }

    /// The call's span is a child of the caller's, and each request carries the trace context
    /// the tracer injects.
    @Test func theCallerIsTheParentAndTheContextIsInjected() async throws {
        let server = try await TestServer.get()
        let observed = Observed(server: server)
        let (seen, callerID) = try await observed.tracer.withSpan("caller") { caller in
            let seen = try await APIManager.withDefaultAPI(observed.scope) {
                let operation = APIManager.operation(ObservedAPI.echo, as: Seen.self)
                let seen = try await operation.run()
                await operation.telemetryReported()
                return seen
            }
            return (seen, caller.spanID)
        }
        let spans = observed.tracer.finishedSpans
        let call = try #require(spans.first { $0.operationName == "observed echo" })
        let attempt = try #require(spans.first { $0.parentSpanID == call.spanID })
        #expect(call.parentSpanID == callerID)
        #expect(seen.headers[InMemoryTracer.traceIDKey] == call.traceID)
        #expect(seen.headers[InMemoryTracer.spanIDKey] == attempt.spanID)
    }

    /// A failure is counted by its stage; the call's span says which.
    @Test func aFailureIsCountedByStage() async throws {
        let server = try await TestServer.get()
        let observed = Observed(server: server)
        let operation = APIManager.withDefaultAPI(observed.scope) { APIManager.operation(ObservedAPI.missing, as: Seen.self) }
        let result = await operation.runResult()
        await operation.telemetryReported()
        guard case let .failure(error) = result else {
            Issue.record("a 404 succeeded")
            return
        }
        #expect(error.stageName == "server")
        #expect(observed.total("apilayer.requests", ["status_class": "4xx", "outcome": "failure"]) == 1)
        #expect(observed.total("apilayer.failures", ["method": "missing", "stage": "server"]) == 1)
        let call = try #require(observed.tracer.finishedSpans.first { $0.operationName == "observed missing" })
        #expect(call.status?.code == .error)
        #expect(call.attributes["apilayer.failure.stage"]?.toSpanAttribute() == "server")
        let attempt = try #require(observed.tracer.finishedSpans.first { $0.parentSpanID == call.spanID })
        #expect(attempt.attributes["error.type"]?.toSpanAttribute() == "404")
    }

    /// 1 000 calls to 1 000 distinct paths (one template): OpenTelemetry's metrics and
    /// APILayer's keep a handful of dimension sets, none of which names a path or an ID; the
    /// spans carry the template. A dimension that held the path would make 1 000 series: a
    /// thousand tell "bounded" from "one per path" as well as any larger count, at a tenth of
    /// the work of ten thousand (the test then fits a busy two-core machine).
    @Test func aThousandPathsKeepTheMetricsBounded() async throws {
        let server = try await TestServer.get()
        let observed = Observed(server: server, engine: .nio)
        let keys = (0..<1_000).map { "k\($0)-\(UUID().uuidString.prefix(4))" }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<8 {
                group.addTask {
                    for key in keys[(keys.count * lane / 8)..<(keys.count * (lane + 1) / 8)] {
                        _ = try await APIManager.withDefaultAPI(observed.scope) {
                            try await APIManager.call(ObservedAPI.stats, properties: ["key": key], as: JSONValueAnswer.self)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        // The last reports may still be on their queues.
        let metrics = observed.metrics
        #expect(await eventually { metrics.timers(label: "http.client.request.duration").map(\.values.count).reduce(0, +) == keys.count })
        #expect(await eventually { metrics.timers(label: "apilayer.request.duration").map(\.values.count).reduce(0, +) == keys.count })
        let durations = metrics.timers(label: "http.client.request.duration")
        #expect(durations.count == 1)
        let everyMetric = observed.metrics.counters.map { ($0.label, $0.dimensions) } + observed.metrics.timers.map { ($0.label, $0.dimensions) }
        #expect(everyMetric.count < 12, "\(everyMetric.map(\.0))")
        let values = everyMetric.flatMap(\.1).map(\.1)
        #expect(!values.contains { $0.contains("/") || $0.hasPrefix("k") || $0.contains("stats") && $0 != "stats" })
        let templates = Set(observed.tracer.finishedSpans.filter { $0.kind == .client }.map(\.operationName))
        #expect(templates == ["GET /counted-stats/{key}"])
    }

    /// A call cancelled while its request is out: the attempt ends `cancelled`, the call too,
    /// and a cancellation is not counted as a failure.
    @Test func aCancelledCallIsNotAFailure() async throws {
        let server = try await TestServer.get()
        let observed = Observed(server: server)
        let operation = APIManager.withDefaultAPI(observed.scope) {
            APIManager.operation(ObservedAPI.delay, properties: ["seconds": 10], as: Seen.self)
        }
        operation.start()
        let tracer = observed.tracer
        #expect(await eventually { tracer.activeSpans.contains { $0.operationName == "GET /delay" } })
        operation.cancel()
        await operation.finished()
        await operation.telemetryReported()
        let spans = observed.tracer.finishedSpans
        let call = try #require(spans.first { $0.operationName == "observed delay" })
        #expect(call.attributes["apilayer.outcome"]?.toSpanAttribute() == "cancelled")
        let attempt = try #require(spans.first { $0.parentSpanID == call.spanID })
        #expect(attempt.attributes["error.type"]?.toSpanAttribute() == "cancelled")
        #expect(observed.total("apilayer.requests", ["status_class": "none", "outcome": "cancelled"]) == 1)
        #expect(observed.metrics.counters(label: "apilayer.failures").isEmpty)
    }

    /// A call that nothing observes (the no-op metrics backend and tracer, a logger above
    /// `debug`) keeps its request ID, and its telemetry joins no chain and writes no line; the
    /// same call with a logger at `debug` has its telemetry as a stage.
    @Test func aCallNothingObservesKeepsItsRequestIDAndNoStage() async throws {
        let server = try await TestServer.get()
        func isTelemetry(_ stage: any NetworkMiddleware) -> Bool { String(describing: type(of: stage)) == "CallTelemetry" }
        for level in [Logger.Level.info, .debug] {
            let capture = LogCapture()
            var logger = capture.logger()
            logger.logLevel = level
            let scope = APIScope(
                name: "quiet",
                configuration: APIScope.Configuration(
                    baseURL: server.baseURL, session: TestEngine.nio.session, logger: logger,
                    metricsFactory: NOOPMetricsHandler.instance, tracer: NoOpTracer()))
            let operation = APIManager.withDefaultAPI(scope) { APIManager.operation(ObservedAPI.echo, as: Seen.self) }
            #expect(operation.requestID != nil)
            #expect(operation.middleware.contains(where: isTelemetry) == (level == .debug), "logger at \(level)")
            _ = try await operation.run()
            await operation.telemetryReported()
            if level == .info {
                #expect(capture.count == 0, "\(capture.text)")
            } else {
                #expect(capture.text.contains(operation.requestID ?? "no ID"))
            }
        }
    }

    /// Debug lines for each request and response, with the call's request ID, and no token in
    /// any line, description or command.
    @Test func requestLogsCarryAnIDAndNoToken() async throws {
        let server = try await TestServer.get()
        let observed = Observed(server: server)
        observed.authenticate(server: server)
        let operation = APIManager.withDefaultAPI(observed.scope) {
            APIManager.operation(ObservedAPI.protectedInQuery, properties: ["realm": observed.realm], as: Granted.self)
        }
        let requestID = try #require(operation.requestID)
        _ = try await operation.run()
        await operation.telemetryReported()
        let log = observed.capture.text
        #expect(log.contains("request GET"))
        #expect(log.contains("response 401 GET"))
        #expect(log.contains("response 200 GET"))
        #expect(log.contains("access_token=<redacted>"))
        #expect(log.contains(requestID))
        let token = try #require(observed.scope.authentication?.token?.accessToken)
        for secret in [token, "stale-\(observed.realm)", "seed-\(observed.realm)"] {
            #expect(!log.contains(secret), "\(secret) was logged")
            #expect(!operation.cURLDescription.contains(secret))
        }
        #expect(operation.cURLDescription.contains("access_token=<redacted>"))
        #expect(operation.cURLDescription(redactingWith: nil).contains(token))
    }

    /// A service's own secret names are redacted too.
    @Test func aServiceAddsItsOwnSecretNames() async throws {
        let server = try await TestServer.get()
        let observed = Observed(server: server)
        observed.scope.configure { $0.redaction = Redaction(headers: ["X-Api-Key"], parameters: ["pin"]) }
        let operation = APIManager.withDefaultAPI(observed.scope) {
            APIManager.operation(ObservedAPI.echo, properties: ["pin": "4711"], headers: ["X-Api-Key": "k-123"], as: Seen.self)
        }
        let seen = try await operation.run()
        await operation.telemetryReported()
        #expect(seen.query["pin"] == "4711")
        let log = observed.capture.text
        #expect(log.contains("pin=<redacted>"))
        #expect(!log.contains("4711") && !log.contains("k-123"))
        #expect(!operation.cURLDescription.contains("4711") && !operation.cURLDescription.contains("k-123"))
    }

    /// Bad input: a slow metrics backend and a slow tracer delay only their own calls; the
    /// operation still ends, and nothing hangs.
    @Test func aSlowBackendBlocksNothing() async throws {
        let server = try await TestServer.get()
        let scope = APIScope(
            name: "slow",
            configuration: .init(
                baseURL: server.baseURL, metricsFactory: SlowMetrics(),
                tracer: SlowTracer()))
        let operation = APIManager.withDefaultAPI(scope) { APIManager.operation(ObservedAPI.echo, as: Seen.self) }
        // Started by a queue's thread: the backends sleep where they are called, and a test
        // never blocks a Swift-concurrency thread.
        APIManager.asyncQueue.addOperation(operation)
        await operation.finished()
        #expect(operation.state == .successFinished)
        #expect(try operation.result?.get().query.isEmpty == true)
    }
}

/// Bad input that must not leak or block: a URL with credentials in it, a thousand headers.
@Suite("Observability: bad input", .processGate(.shared, minutes: 2))
struct ObservabilityBadInputTests {
    @Test func aURLWithCredentialsNeverShowsThem() async throws {
        let server = try await TestServer.get()
        let port = try #require(server.baseURL.port)
        let base = try #require(URL(string: "http://apiuser:pa55word@127.0.0.1:\(port)/"))
        let observed = Observed(server: server)
        observed.scope.configure { $0.baseURL = base }
        let operation = APIManager.withDefaultAPI(observed.scope) { APIManager.operation(ObservedAPI.echo, as: Seen.self) }
        _ = try? await operation.run()
        await operation.telemetryReported()
        #expect(operation.isFinishedOrCancelled)
        let spans = observed.tracer.finishedSpans
        #expect(!spans.isEmpty)
        let everything =
            observed.capture.text + operation.cURLDescription + "\(operation.result.map { "\($0)" } ?? "")"
            + spans.map { "\($0.attributes)" }.joined()
        #expect(!everything.contains("pa55word"), "\(everything)")
        #expect(observed.capture.text.contains("<redacted>@127.0.0.1"))
    }

    @Test func aThousandHeadersAreLoggedRedacted() async throws {
        let server = try await TestServer.get()
        let observed = Observed(server: server)
        var headers = ["Authorization": "Bearer thousand-secret", "Cookie": "c=thousand-cookie"]
        for index in 0..<1_000 { headers["X-Many-\(index)"] = "v\(index)" }
        let operation = APIManager.withDefaultAPI(observed.scope) {
            APIManager.operation(ObservedAPI.echo, headers: headers, as: Seen.self)
        }
        // DemoServer may refuse that many (its HTTP parser answers 400): either way the call ends.
        _ = try? await operation.run()
        await operation.telemetryReported()
        #expect(operation.isFinishedOrCancelled)
        let log = observed.capture.text
        #expect(log.contains("X-Many-999"))
        #expect(!log.contains("thousand-secret") && !log.contains("thousand-cookie"))
        #expect(!operation.cURLDescription.contains("thousand-secret"))
    }

    /// APILayer never bootstraps the process-wide systems: a call with the default
    /// configuration records into whatever the service bootstrapped, here nothing.
    @Test func theLibraryBootstrapsNothing() async throws {
        let server = try await TestServer.get()
        let scope = APIScope(name: "unbootstrapped", configuration: .init(baseURL: server.baseURL))
        #expect(scope.configuration.metricsFactory == nil && scope.configuration.tracer == nil)
        _ = try await APIManager.withDefaultAPI(scope) { try await APIManager.call(ObservedAPI.echo, as: Seen.self) }
        #expect(MetricsSystem.factory is NOOPMetricsHandler)
        #expect(InstrumentationSystem.tracer is NoOpTracer)
    }
}

extension APIOperation {
    /// Runs the operation and returns its result instead of throwing.
    fileprivate func runResult() async -> Result<Model, APIError> {
        do { return .success(try await run()) } catch { return .failure(error) }
    }
}

/// A metrics backend whose every record takes 20 ms.
private struct SlowMetrics: MetricsFactory {
    final class Handler: CounterHandler, TimerHandler, RecorderHandler, MeterHandler, FloatingPointCounterHandler, Sendable {
        func pause() { usleep(20_000) }
        func increment(by: Int64) { pause() }
        func increment(by: Double) { pause() }
        func decrement(by: Double) { pause() }
        func set(_ value: Double) { pause() }
        func set(_ value: Int64) { pause() }
        func record(_ value: Int64) { pause() }
        func record(_ value: Double) { pause() }
        func recordNanoseconds(_ duration: Int64) { pause() }
        func reset() {}
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { Handler() }
    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler { Handler() }
    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler { Handler() }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler { Handler() }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { Handler() }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    func destroyMeter(_ handler: any MeterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}

/// A tracer that takes 20 ms to start each span, over the in-memory one.
private struct SlowTracer: Tracer {
    let inner = InMemoryTracer()

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String,
        line: UInt
    ) -> InMemorySpan {
        usleep(20_000)
        return inner.startSpan(operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line)
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        usleep(20_000)
        inner.inject(context, into: &carrier, using: injector)
    }

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {}
}
