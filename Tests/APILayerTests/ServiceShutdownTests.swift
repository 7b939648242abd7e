import APILayer
import DemoServer
import Foundation
import NetOps
import TestSupport
import Testing

/// `APIService`: the APIs' graceful shutdown. In a child process under load, stopped with
/// SIGTERM as a container runtime stops it; in this process for what load hides (a refresh, a
/// suspended download, refusals, cancellation).
@Suite("APIService: graceful shutdown", .processGate(.shared, minutes: 3))
struct ServiceShutdownTests {
    /// How `apilayer shutdown-drill` says its calls ended.
    struct DrillReport: Decodable {
        let started: Int
        let succeeded: Int
        let failed: Int
        let cancelled: Int
        let refused: Int
        let endedTwice: Int
        let lost: Int
        let inFlightAtShutdown: Int
        let cancelledByService: Int
        let unended: Int
        let sessionsShutDown: Int
    }

    static func drill(_ engine: TestEngine, signals: [Int32]) async throws -> (SignalledRun, DrillReport) {
        let server = try await TestServer.get()
        let tool = try #require(APILayerExecutable.url, "the apilayer executable is built beside the tests")
        let run = try await runChildProcess(
            tool,
            [
                "shutdown-drill", "--url", server.baseURL.absoluteString, "--engine", engine == .nio ? "nio" : "urlsession",
                "--concurrency", "16", "--drain-seconds", "1",
            ], signalling: signals, after: "ready")
        let line = try #require(run.output.split(separator: "\n").last { $0.hasPrefix("{") }, "no report; stderr: \(run.error)")
        return (run, try JSONDecoder().decode(DrillReport.self, from: Data(line.utf8)))
    }

    /// SIGTERM mid-load: calls in flight drain or are cancelled after the 1 s drain, later ones
    /// are refused, every call ends exactly once and the process exits soon after the drain.
    @Test(arguments: TestEngine.allCases)
    func sigtermMidLoadEndsEveryCallOnce(_ engine: TestEngine) async throws {
        let (run, report) = try await Self.drill(engine, signals: [SIGTERM])
        #expect(run.status == 0, "stderr: \(run.error)")
        #expect(report.lost == 0)
        #expect(report.endedTwice == 0)
        #expect(report.unended == 0)
        #expect(report.failed == 0)
        // Four of sixteen workers wait 30 s per call: always cancelled after the drain. The
        // others' calls finish during it and their next ones are refused; on a busy machine a
        // few of them may still be in flight when the drain ends, and are cancelled too. Every
        // cancelled call was one in flight, cancelled by the service.
        #expect(report.cancelledByService >= 4)
        #expect(report.cancelled == report.cancelledByService)
        #expect(report.cancelledByService <= report.inFlightAtShutdown)
        #expect(report.refused >= 1)
        #expect(report.inFlightAtShutdown >= 4)
        #expect(report.succeeded > 0)
        #expect(report.sessionsShutDown == 1)
        // The drain (1 s) and the cancelled calls' ends; the rest of the margin is a loaded
        // machine's (a sanitizer's build runs several times slower).
        let seconds = try #require(run.secondsToExit)
        #expect(seconds < 15, "exited \(seconds) s after SIGTERM")
        #expect(run.error.contains("new calls refused"))
    }

    /// A second SIGTERM during the drain changes nothing: the shutdown under way goes on.
    @Test func sigtermTwiceInARow() async throws {
        let (run, report) = try await Self.drill(.nio, signals: [SIGTERM, SIGTERM])
        #expect(run.status == 0, "stderr: \(run.error)")
        #expect(report.lost == 0)
        #expect(report.endedTwice == 0)
        #expect(report.cancelledByService >= 4)
        #expect(report.cancelled == report.cancelledByService)
    }

    /// A scope of the test's own on `engine`, owned by a service with `drain`.
    static func service(
        _ engine: TestEngine, base: URL, drain: Duration = .seconds(1), log: LogCapture = LogCapture()
    ) -> (APIScope, APIService, NetworkSession) {
        let session = engine.makeSession()
        var configuration = APIScope.Configuration(baseURL: base, session: session)
        configuration.logger = log.logger()
        let scope = APIScope(name: "shutdown-\(engine)-\(UUID().uuidString.prefix(6))", configuration: configuration)
        let service = APIService(scopes: [scope], configuration: .init(drainTimeout: drain), logger: log.logger())
        return (scope, service, session)
    }

    /// Calls in flight finish within the drain; a recipe call made after is refused at
    /// `construction`; an operation made before but started after is refused too; the session
    /// is shut: a plain operation on it fails at once.
    @Test(arguments: TestEngine.allCases)
    func drainsThenRefusesThenShutsTheEngine(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let (scope, service, session) = Self.service(engine, base: server.baseURL, drain: .seconds(10))
        let quick = (0..<4).map { _ -> DTO in
            let operation = DTO.get(server.baseURL.appendingPathComponent("delay").appending(queryItems: [.init(name: "seconds", value: "0.5")]))
            scope.adopt(operation)
            operation.start()
            return operation
        }
        let madeBefore = DTO.get(server.baseURL.appendingPathComponent("json"))
        scope.adopt(madeBefore)
        #expect(await eventually { service.callsInFlight == 4 })
        let report = await service.stop()
        #expect(report.inFlightAtStart == 4)
        #expect(report.cancelled == 0)
        #expect(quick.allSatisfy { $0.state == .successFinished })
        #expect(scope.isStopping)

        await #expect(throws: APIError.self) {
            try await APIManager.withDefaultAPI(scope) { try await APIManager.call(PingAPI.ping, as: JSONValueBox.self) }
        }
        let refused = APIManager.withDefaultAPI(scope) { APIManager.operation(PingAPI.ping, as: JSONValueBox.self) }
        _ = try? await refused.run()
        #expect(refused.result.map { "\($0)" }?.contains("takes no new calls") == true)
        if case let .failure(error)? = refused.result { #expect(error.stageName == "construction") }

        _ = try? await madeBefore.run()
        #expect(madeBefore.error?.description.contains("takes no new calls") == true)

        let afterShutdown = DTO.get(server.baseURL.appendingPathComponent("json"))
        afterShutdown.privateSession = session
        _ = try? await afterShutdown.run()
        guard case .cannotConnect? = afterShutdown.error?.kind else {
            Issue.record("expected cannotConnect after the shutdown, got \(String(describing: afterShutdown.error))")
            return
        }
        #expect(afterShutdown.error?.description.contains("shut down") == true)
        // Again: nothing more happens.
        #expect(await service.stop() == report)
    }

    /// A shutdown during a token refresh that hangs: the calls parked on it are cancelled after
    /// the drain, the refresh is abandoned, and a later 401 starts none.
    @Test func shutdownDuringATokenRefresh() async throws {
        let (server, realm, base) = try await TestServer.newRealm()
        server.tokenAuthority(realm: realm).configure(mode: .hang, delay: nil, lifetime: nil, maxUses: nil, expireAll: false)
        let (scope, service, _) = Self.service(.nio, base: base, drain: .milliseconds(500))
        let coordinator = scope.configureAuthentication(
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: base.appendingPathComponent("oauth/token"), timeout: 60),
            store: InMemoryTokenStore(Token(accessToken: "stale", refreshToken: "seed-1")))
        let calls = (0..<5).map { _ -> DTO in
            let operation = DTO.get(base.appendingPathComponent("protected"))
            scope.adopt(operation)
            operation.start()
            return operation
        }
        #expect(await eventually { coordinator.parkingLot.count == 5 })
        let started = ContinuousClock.now
        let report = await service.stop()
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(report.inFlightAtStart == 5)
        #expect(report.cancelled == 5)
        for call in calls {
            await call.finished()
            #expect(call.state == .cancelled || call.state == .failedFinished)
        }
        #expect(coordinator.isStopped)
        await #expect(throws: AuthenticationError.stopped) { try await coordinator.authenticationProcess() }
    }

    /// A suspended download is a call in flight: cancelled when the drain ends, its partial
    /// file removed.
    @Test(arguments: TestEngine.allCases)
    func shutdownWithASuspendedDownload(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let (scope, service, _) = Self.service(engine, base: server.baseURL, drain: .milliseconds(300))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("suspended-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let drip = server.baseURL.appendingPathComponent("drip").appending(queryItems: [
            .init(name: "bytes", value: "400"), .init(name: "interval", value: "0.01"),
        ])
        let download = DownloadOperation.get(drip, to: file)
        scope.adopt(download)
        download.start()
        #expect(await eventually { download.progress.bytesReceived > 0 })
        #expect(download.suspend())
        let report = await service.stop()
        #expect(report.cancelled == 1)
        await download.finished()
        #expect(download.state == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    /// Cancelled instead of shut down gracefully, the service does not wait for the drain.
    @Test func cancellationStopsAtOnce() async throws {
        let server = try await TestServer.get()
        let (scope, service, _) = Self.service(.nio, base: server.baseURL, drain: .seconds(60))
        let slow = DTO.get(server.baseURL.appendingPathComponent("delay").appending(queryItems: [.init(name: "seconds", value: "30")]))
        scope.adopt(slow)
        slow.start()
        #expect(await eventually { service.callsInFlight == 1 })
        let started = ContinuousClock.now
        let running = Task { try await service.run() }
        running.cancel()
        try await running.value
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(slow.state == .cancelled)
        #expect(service.shutdownReport?.cancelled == 1)
    }

    /// A stopped monitor ends its update streams and checks no more after failures.
    @Test func aStoppedMonitorEndsItsStreams() async throws {
        let monitor = ConnectivityMonitor()
        let updates = monitor.updates()
        let service = APIService(scopes: [], connectivityMonitors: [monitor])
        await service.stop()
        #expect(monitor.isStopped)
        var received = 0
        for await _ in updates { received += 1 }
        #expect(received == 0)
        var after = 0
        for await _ in monitor.updates() { after += 1 }
        #expect(after == 0)
    }
}

/// Any JSON answer.
struct JSONValueBox: Decodable, Sendable {
    init(from decoder: any Decoder) throws {}
}
