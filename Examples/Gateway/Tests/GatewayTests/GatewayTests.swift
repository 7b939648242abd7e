import AsyncHTTPClient
import Configuration
import DemoServer
import Foundation
import GatewayService
import InMemoryTracing
import NIOCore
import NIOHTTP1
import Testing

/// The gateway in this process against a DemoServer in this process, each test in a realm of
/// its own (its own tokens, issues and latency).
@Suite("Gateway", .timeLimit(.minutes(3)))
struct GatewayTests {
    /// The process's DemoServer.
    static let demo = Task { try await DemoServer.start() }

    /// The tests' client, which makes no spans of its own: the `traceparent` a test sends is the
    /// one the gateway receives.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.tracing.tracer = nil
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// A GET of `url`: status, headers, body.
    static func get(_ url: String, headers: HTTPHeaders = [:]) async throws -> (status: Int, headers: HTTPHeaders, body: String) {
        var request = HTTPClientRequest(url: url)
        request.headers = headers
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 4 << 20)
        return (Int(response.status.code), response.headers, String(buffer: body))
    }

    /// `count` of DemoServer's users but 13, its deleted account, whose empty name the
    /// `users.get` template rejects.
    static func users(_ count: Int) -> [Int] {
        Array((1...count + 1).filter { $0 != 13 }.prefix(count))
    }

    /// Polls `condition` every 20 ms for up to `seconds`; whether it came true.
    static func eventually(within seconds: Double = 10, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    @Test("GET /overview/{user} answers with a user from SampleAPI and issues from TrackerAPI")
    func overviewAnswersWithBothAPIs() async throws {
        let server = try await Self.demo.value
        let gateway = try await RunningGateway.start(against: server, realm: "gateway-overview")
        let answer = try await Self.get(gateway.url("/overview/7"))
        #expect(answer.status == 200, "\(answer.body)")
        let overview = try JSONDecoder().decode(Overview.self, from: Data(answer.body.utf8))
        #expect(overview.user.id == 7)
        #expect(!overview.user.name.isEmpty)
        #expect(overview.issues.count == 5)
        #expect(overview.issues.map(\.number) == overview.issues.map(\.number).sorted(by: >), "newest first")

        let notANumber = try await Self.get(gateway.url("/overview/me"))
        #expect(notANumber.status == 400)
        // User 999 does not exist: SampleService answers its error 113, the gateway a 502.
        let failing = try await Self.get(gateway.url("/overview/999"))
        #expect(failing.status == 502)
        #expect(failing.body.contains(#""api":"sample""#), "\(failing.body)")
        #expect(!failing.body.contains("access_token"))

        try await gateway.stop()
        let summary = gateway.app.summary
        #expect(summary.requests == 2)
        #expect(summary.calls.started == 4)
        #expect(summary.calls.succeeded == 3)
        #expect(summary.calls.failed == 1)
        #expect(summary.calls.lost == 0)
        #expect(summary.jsonLine.contains(#""lost":0"#))
    }

    @Test("an incoming traceparent continues through the gateway to both APIs' requests: one trace, three hops")
    func traceparentReachesBothAPIs() async throws {
        let tracer = TraceparentTracer.shared
        let server = try await Self.demo.value
        let realm = "gateway-trace"
        let gateway = try await RunningGateway.start(against: server, realm: realm)
        let traceID = TraceparentTracer.hex(bytes: 16)
        let clientSpanID = TraceparentTracer.hex(bytes: 8)
        let answer = try await Self.get(gateway.url("/overview/3"), headers: ["traceparent": "00-\(traceID)-\(clientSpanID)-01"])
        #expect(answer.status == 200, "\(answer.body)")

        // Hop 1 → 2: the gateway's server span continues the client's trace, and the two API
        // calls are its children (their attempts, theirs).
        func spans() -> [FinishedInMemorySpan] { tracer.spans.finishedSpans.filter { $0.traceID == traceID } }
        let complete = await Self.eventually {
            let names = spans().map(\.operationName)
            return names.contains { $0.contains("overview") } && names.contains("sample users.get")
                && names.contains("tracker issues/list-for-repo")
        }
        #expect(complete, "spans of the trace: \(spans().map(\.operationName))")
        let serverSpan = try #require(spans().first { $0.operationName.contains("overview") })
        #expect(serverSpan.parentSpanID == clientSpanID)
        let calls = spans().filter { ["sample users.get", "tracker issues/list-for-repo"].contains($0.operationName) }
        #expect(calls.count == 2)
        #expect(calls.allSatisfy { $0.parentSpanID == serverSpan.spanID })

        // Hop 2 → 3: both outgoing requests carried the same trace, each naming a span of the
        // gateway's as its parent.
        let gatewaySpans = Set(spans().map(\.spanID))
        let seen = server.traceContextsSeen().filter { $0.path.contains("/\(realm)/") && $0.traceID == traceID }
        let sampleRequest = try #require(seen.first { $0.path.hasSuffix("/method/users.get") }, "\(seen)")
        let trackerRequest = try #require(seen.first { $0.path.hasSuffix("/issues") }, "\(seen)")
        #expect(sampleRequest.parentSpanID.map(gatewaySpans.contains) == true)
        #expect(trackerRequest.parentSpanID.map(gatewaySpans.contains) == true)
        try await gateway.stop()
    }

    @Test("/metrics lists APILayer's metrics of both APIs in Prometheus' text format")
    func metricsListAPILayerMetrics() async throws {
        let server = try await Self.demo.value
        let gateway = try await RunningGateway.start(against: server, realm: "gateway-metrics")
        #expect(try await Self.get(gateway.url("/overview/2")).status == 200)
        var text = ""
        // Calls report their metrics off their own path, a moment after they end.
        let listed = try await Self.eventually {
            let answer = try await Self.get(gateway.url("/metrics"))
            text = answer.body
            return answer.status == 200 && text.contains(#"api="sample""#) && text.contains(#"api="tracker""#)
        }
        #expect(listed, "\(text)")
        #expect(text.contains("apilayer_requests"))
        #expect(text.contains("apilayer_request_duration"))
        #expect(text.contains("apilayer_token_refreshes"))
        try await gateway.stop()
    }

    /// `count` requests of `/overview/{user}` sent at once; their statuses (-1: no answer).
    static func overviews(_ count: Int, from gateway: RunningGateway) -> Task<[Int], Never> {
        Task {
            await withTaskGroup(of: Int.self) { group in
                for user in users(count) {
                    group.addTask { (try? await get(gateway.url("/overview/\(user)")).status) ?? -1 }
                }
                return await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }
    }

    /// Whether the gateway soon started `started` calls with at least `inFlight` still running.
    static func callsStarted(_ started: Int, inFlight: Int, in gateway: RunningGateway) async -> Bool {
        await eventually {
            gateway.app.apis.ledger.snapshot.started == started && gateway.app.apis.service.callsInFlight >= inFlight
        }
    }

    @Test("graceful shutdown with calls in flight: they finish, later requests get 503 while the APIs drain, no call is lost")
    func gracefulShutdownDrainsCallsInFlight() async throws {
        let server = try await Self.demo.value
        let realm = "gateway-drain"
        server.sampleService(realm: realm).latency = 2
        let gateway = try await RunningGateway.start(against: server, realm: realm, drainTimeout: 10)
        let requests = 16
        let responses = Self.overviews(requests, from: gateway)
        // Every request made its two calls; the TrackerAPI ones end at once, each SampleAPI one
        // waits 2 s at the server.
        #expect(await Self.callsStarted(2 * requests, inFlight: requests, in: gateway))
        await gateway.group.triggerGracefulShutdown()
        #expect(await Self.eventually { gateway.app.apis.sample.isStopping })

        // The APIs drain first, while the server still answers: a new request is refused at once.
        let late = try await Self.get(gateway.url("/overview/1"))
        #expect(late.status == 503)
        #expect(late.headers["Retry-After"] == ["1"])

        let statuses = await responses.value
        #expect(statuses == Array(repeating: 200, count: requests))
        try await gateway.run.value
        let summary = gateway.app.summary
        #expect(summary.calls.lost == 0)
        #expect(summary.unended == 0)
        #expect(summary.cancelledByService == 0)
        #expect((summary.inFlightAtShutdown ?? 0) >= requests)
        #expect(summary.calls.succeeded == 2 * requests)
        #expect(summary.calls.refused == 2)
        #expect(summary.calls.started == 2 * requests + 2)
    }

    @Test("graceful shutdown past the drain timeout: calls still running are cancelled, answered 503, and none is lost")
    func gracefulShutdownCancelsAfterTheDrain() async throws {
        let server = try await Self.demo.value
        let realm = "gateway-cancel"
        server.sampleService(realm: realm).latency = 30
        let gateway = try await RunningGateway.start(against: server, realm: realm, drainTimeout: 0.5)
        let requests = 8
        let responses = Self.overviews(requests, from: gateway)
        #expect(await Self.callsStarted(2 * requests, inFlight: requests, in: gateway))
        let clock = ContinuousClock()
        let began = clock.now
        try await gateway.stop()
        #expect(began.duration(to: clock.now) < .seconds(10), "the drain (0.5 s) bounds the shutdown, not the calls' 30 s")
        let statuses = await responses.value
        #expect(statuses == Array(repeating: 503, count: requests))
        let summary = gateway.app.summary
        #expect(summary.calls.lost == 0)
        #expect(summary.unended == 0)
        #expect(summary.cancelledByService == requests)
        #expect(summary.calls.cancelled == requests)
    }

    @Test("the configuration reads its keys, derives the APIs' URLs from DemoServer's, and never shows a secret")
    func configurationReadsKeysAndHidesSecrets() throws {
        let reader = ConfigReader(
            provider: InMemoryProvider(values: [
                "http.port": 9090, "demo.url": "http://127.0.0.1:8080/", "demo.realm": "east",
                "apis.tracker.clientSecret": ConfigValue(.string("tracker-s3cret"), isSecret: true),
                "apis.sample.baseURL": "http://sample.internal:9000/method/", "shutdown.drainTimeout": 2.5,
            ]))
        let configuration = try GatewayConfiguration(reading: reader)
        #expect(configuration.port == 9090)
        #expect(configuration.drainTimeout == .milliseconds(2500))
        #expect(configuration.sample.scope.baseURL?.absoluteString == "http://sample.internal:9000/method/")
        #expect(configuration.tracker.scope.baseURL?.absoluteString == "http://127.0.0.1:8080/rest/east/")
        #expect(configuration.tracker.tokenURL.absoluteString == "http://127.0.0.1:8080/realm/east/oauth/token")
        #expect(configuration.tracker.clientSecret == "tracker-s3cret")
        #expect(!"\(configuration.tracker)".contains("s3cret"))
        #expect(throws: GatewayConfigurationError.self) {
            try GatewayConfiguration(reading: ConfigReader(provider: InMemoryProvider(values: ["demo.url": "not a url"])))
        }
    }

    @Test("an API's scope keys are APILayer's, and a value it cannot use is refused naming its key, never its value")
    func scopeKeysAreReadAndBadOnesRefused() throws {
        let good = try GatewayConfiguration(
            reading: ConfigReader(
                provider: InMemoryProvider(values: [
                    "apis.tracker.totalTimeout": 12.5, "apis.tracker.retry.maximumAttempts": 4, "apis.sample.allowsHTTP2": false,
                ])))
        #expect(good.tracker.scope.totalTimeout == 12.5)
        #expect(good.tracker.scope.retryPolicy?.maximumAttempts == 4)
        #expect(good.sample.scope.allowsHTTP2 == false)
        #expect(good.sample.scope.totalTimeout == 30)
        let bad: [AbsoluteConfigKey: ConfigValue] = [
            "apis.tracker.totalTimeout": -3,
            "apis.tracker.clientSecret": ConfigValue(.string("tracker-s3cret"), isSecret: true),
        ]
        do {
            _ = try GatewayConfiguration(reading: ConfigReader(provider: InMemoryProvider(values: bad)))
            Issue.record("a negative total timeout must be refused")
        } catch {
            #expect("\(error)".contains("apis.tracker.totalTimeout"))
            #expect(!"\(error)".contains("-3") && !"\(error)".contains("s3cret"))
        }
    }
}
