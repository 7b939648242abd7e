import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// An HTTP server for APILayer's tests, demo and benchmarks, running inside the calling process.
///
/// It listens on 127.0.0.1 on a port the system picks, serves the routes listed in
/// `Docs/demo-server.md` (JSON, large bodies with and without Range support, slow and failing
/// responses, any status, 401s, an upload sink, a multipart echo) and shuts down gracefully.
///
/// ```swift
/// let server = try await DemoServer.start()
/// let url = server.baseURL.appending(path: "json")
/// // … talk to it …
/// await server.stop()
/// ```
public final class DemoServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// The host the server listens on.
    public let host: String
    /// True when the server speaks TLS (`start(…, tls:)`): HTTP/2 and HTTP/1.1, chosen by ALPN.
    public let usesTLS: Bool
    /// `http://host:port/` (`https://` with TLS), the root every route hangs from.
    public var baseURL: URL { URL(string: "\(usesTLS ? "https" : "http")://\(host):\(port)/")! }

    private let group: ServiceGroup
    private let runTask: Task<Void, any Error>
    private let counters: NIOLockedValueBox<DemoServerStatistics>
    private let realms: TokenRealms
    private let sampleServices: SampleServices
    private let trackerServices: TrackerServices
    private let credentials: CredentialLog
    private let traceContexts: TraceContextLog

    private init(
        port: Int, host: String, usesTLS: Bool, group: ServiceGroup, runTask: Task<Void, any Error>,
        counters: NIOLockedValueBox<DemoServerStatistics>, realms: TokenRealms, sampleServices: SampleServices,
        trackerServices: TrackerServices, credentials: CredentialLog, traceContexts: TraceContextLog
    ) {
        self.usesTLS = usesTLS
        self.realms = realms
        self.sampleServices = sampleServices
        self.trackerServices = trackerServices
        self.credentials = credentials
        self.traceContexts = traceContexts
        self.port = port
        self.host = host
        self.group = group
        self.runTask = runTask
        self.counters = counters
    }

    /// Starts a server and returns once it accepts connections.
    ///
    /// - Parameters:
    ///   - host: The address to bind; keep the default loopback address for tests.
    ///   - port: The port to bind; 0 lets the system pick a free one.
    ///   - logLevel: The level of the server's own log (warnings and errors by default).
    ///   - tls: A certificate and key to serve HTTPS with, HTTP/2 offered by ALPN beside
    ///     HTTP/1.1; nil serves cleartext HTTP/1.1.
    ///   - threads: Threads of the server's own for its connections and handlers; nil runs them
    ///     on NIO's singleton event loops and Swift's cooperative pool, beside the process's
    ///     other work.
    /// - Throws: `DemoServerError.didNotStart` when the address cannot be bound, or the
    ///   certificate or key cannot be read.
    public static func start(
        host: String = "127.0.0.1", port: Int = 0, logLevel: Logger.Level = .warning, tls: DemoServerTLS? = nil,
        threads: DemoServerThreads? = nil
    ) async throws -> DemoServer {
        var logger = Logger(label: "DemoServer")
        logger.logLevel = logLevel
        let counters = NIOLockedValueBox(DemoServerStatistics())
        let router = Router()
        router.add(middleware: CountingMiddleware(counters: counters))
        let credentials = CredentialLog()
        router.add(middleware: CredentialLogMiddleware(log: credentials))
        let traceContexts = TraceContextLog()
        router.add(middleware: TraceContextLogMiddleware(log: traceContexts))
        DemoRoutes.addBasicRoutes(to: router)
        DemoRoutes.addPayloadRoutes(to: router, counters: counters)
        DemoRoutes.addRangeRoutes(to: router)
        DemoRoutes.addRateLimitRoutes(to: router)
        DemoRoutes.addCountedRoutes(to: router)
        DemoRoutes.addCacheRoutes(to: router)
        DemoRoutes.addSlowAndFailingRoutes(to: router)
        DemoRoutes.addStreamRoutes(to: router)
        DemoRoutes.addUploadRoutes(to: router)
        DemoRoutes.addIssuePageRoutes(to: router)
        let realms = TokenRealms { TokenAuthority() }
        DemoRoutes.addAuthRoutes(to: router, realms: realms, flaky: FlakyCounters())
        let sampleServices = SampleServices { SampleService() }
        DemoRoutes.addSampleAPIRoutes(to: router, services: sampleServices, realms: realms)
        DemoRoutes.addFaultRoutes(to: router)
        DemoRoutes.addConformanceRoutes(to: router)
        DemoRoutes.addRandomUnauthorizedRoute(to: router, realms: realms)
        let trackerServices = TrackerServices { TrackerService() }
        DemoRoutes.addTrackerRoutes(to: router, services: trackerServices, realms: realms)
        DemoRoutes.addInventoryRoutes(to: router, realms: realms)
        DemoRoutes.addSecurityRoutes(to: router)
        DemoRoutes.addHostileTextRoutes(to: router)

        let (boundPorts, portContinuation) = AsyncStream<Int>.makeStream()
        let server = try tls.map { try HTTPServerBuilder.http2Upgrade(tlsConfiguration: $0.configuration()) } ?? .http1()
        let application = Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(host, port: port), serverName: "DemoServer", backlog: 1024),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            eventLoopGroupProvider: threads.map { .shared($0.eventLoopGroup) } ?? .singleton,
            logger: logger
        )
        let group = ServiceGroup(configuration: .init(services: [.init(service: application)], logger: logger))
        let runTask = Task {
            defer { portContinuation.finish() }
            if let threads {
                try await withTaskExecutorPreference(threads) { try await group.run() }
            } else {
                try await group.run()
            }
        }
        var ports = boundPorts.makeAsyncIterator()
        guard let boundPort = await ports.next(), boundPort > 0 else {
            runTask.cancel()
            let reason = await runTask.result.failureDescription
            throw DemoServerError.didNotStart(host: host, port: port, reason: reason)
        }
        return DemoServer(
            port: boundPort, host: host, usesTLS: tls != nil, group: group, runTask: runTask, counters: counters, realms: realms,
            sampleServices: sampleServices, trackerServices: trackerServices, credentials: credentials, traceContexts: traceContexts)
    }

    /// Stops accepting connections, lets requests in flight end, and returns when the server is down.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = await runTask.result
    }

    /// The token authority of `realm` (made on first use): its settings and counters.
    public func tokenAuthority(realm: String) -> TokenAuthority {
        realms[realm]
    }

    /// SampleService in `realm` (made on first use): its settings and call counts. Its methods
    /// are at `api/{realm}/method/`, its tokens come from `realm/{realm}/oauth/token`.
    public func sampleService(realm: String) -> SampleService {
        sampleServices[realm]
    }

    /// The base URL of SampleService's methods in `realm`: `http://host:port/api/{realm}/method/`.
    public func sampleAPIBaseURL(realm: String) -> URL {
        baseURL.appendingPathComponent("api/\(realm)/method/", isDirectory: true)
    }

    /// The OAuth 2.0 token endpoint of `realm`.
    public func tokenURL(realm: String) -> URL {
        baseURL.appendingPathComponent("realm/\(realm)/oauth/token")
    }

    /// TrackerService in `realm` (made on first use): its issues and the raw paths it received.
    /// Its routes are at `rest/{realm}/`, its tokens come from `realm/{realm}/oauth/token`.
    public func trackerService(realm: String) -> TrackerService {
        trackerServices[realm]
    }

    /// The base URL of TrackerService in `realm`: `http://host:port/rest/{realm}/`.
    public func trackerBaseURL(realm: String) -> URL {
        baseURL.appendingPathComponent("rest/\(realm)/", isDirectory: true)
    }

    /// The credentials this server received so far (requests that carried an `Authorization`
    /// header or an `access_token` parameter), oldest first.
    public func credentialsSeen() -> [SeenCredential] {
        credentials.all
    }

    /// The trace contexts this server received so far (requests that carried a W3C
    /// `traceparent` header), oldest first: what a traced service propagated to its calls.
    public func traceContextsSeen() -> [SeenTraceContext] {
        traceContexts.all
    }

    /// The client id and secret the realms' token endpoints accept for the client-credentials grant.
    public static let clientCredentials = (id: "demo-client", secret: "demo-secret")

    /// What the server has answered so far.
    public var statistics: DemoServerStatistics {
        counters.withLockedValue { $0 }
    }
}

/// Why DemoServer could not run.
public enum DemoServerError: Error, CustomStringConvertible {
    /// The server could not bind its address.
    case didNotStart(host: String, port: Int, reason: String)

    /// One readable line.
    public var description: String {
        switch self {
        case let .didNotStart(host, port, reason):
            return "DemoServer could not start on \(host):\(port): \(reason)"
        }
    }
}

/// Counts every request in the server's statistics.
struct CountingMiddleware<Context: RequestContext>: RouterMiddleware {
    let counters: NIOLockedValueBox<DemoServerStatistics>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        counters.withLockedValue { $0.requests += 1 }
        return try await next(request, context)
    }
}

extension Result where Failure == any Error {
    fileprivate var failureDescription: String {
        switch self {
        case .success: return "the server stopped before it listened"
        case let .failure(error): return String(describing: error)
        }
    }
}
