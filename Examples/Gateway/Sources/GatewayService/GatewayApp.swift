import APILayer
import Foundation
import Hummingbird
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle
import Synchronization
import UnixSignals

/// The gateway: a Hummingbird 2 server whose `GET /overview/{user}` calls SampleAPI and
/// TrackerAPI through APILayer side by side, `GET /metrics` in Prometheus' text format, and the
/// `ServiceGroup` that runs the server and the APIs and shuts them down in order.
///
/// ```swift
/// let gateway = GatewayApp(configuration: try GatewayConfiguration(reading: config), logger: logger)
/// try await gateway.serviceGroup(signals: [.sigterm, .sigint]).run()
/// print(gateway.summary)
/// ```
public struct GatewayApp: Sendable {
    /// What it was configured with.
    public let configuration: GatewayConfiguration
    /// Its APIs and their service.
    public let apis: GatewayAPIs
    /// Where the APIs' metrics go, and what `/metrics` shows.
    public let registry: PrometheusCollectorRegistry
    /// Its log.
    public let logger: Logger
    private let requests = RequestCounter()

    /// A gateway whose APIs record their metrics in `registry`.
    public init(configuration: GatewayConfiguration, registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), logger: Logger) {
        self.configuration = configuration
        self.registry = registry
        self.logger = logger
        apis = GatewayAPIs(configuration: configuration, metricsFactory: PrometheusMetricsFactory(registry: registry), logger: logger)
    }

    /// The routes: `GET /overview/{user}` and `GET /metrics`, behind the tracing middleware
    /// (an incoming `traceparent` becomes the parent of the APIs' calls, through the task's
    /// `ServiceContext`) and the metrics middleware (Hummingbird's request metrics go to the
    /// process's `MetricsSystem`).
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: TracingMiddleware())
        router.add(middleware: MetricsMiddleware())
        router.get("overview/{user}") { _, context in
            guard let user = context.parameters.get("user", as: Int.self) else {
                return Self.json(["error": "the user is a number"], status: .badRequest)
            }
            return await overviewResponse(user)
        }
        router.get("metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        return router
    }

    /// The answer to `GET /overview/{user}`: 200 with both APIs' data, 503 while shutting down
    /// (with `Retry-After`), 404 when SampleAPI answers no user, 502 when an API call failed (an
    /// unknown user too: SampleService reports it as its error 113).
    private func overviewResponse(_ user: Int) async -> Response {
        requests.increment()
        do {
            return Self.json(try await apis.overview(of: user), status: .ok)
        } catch {
            switch error.reason {
            case .refused, .cancelled:
                return Self.json(["error": "shutting down", "api": error.api], status: .serviceUnavailable, headers: [.retryAfter: "1"])
            case .notFound:
                return Self.json(["error": "no such user"], status: .notFound)
            case let .failed(failure):
                logger.warning("overview of \(user): \(error)")
                return Self.json(["error": "\(error.api) failed at \(failure.stageName)", "api": error.api], status: .badGateway)
            }
        }
    }

    private static func json(_ value: some Encodable, status: HTTPResponse.Status, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        let body = (try? JSONEncoder().encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The Hummingbird application on the configured address; `onServerRunning` is given the
    /// port it listens on (the one the system picked for port 0).
    public func application(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        Application(
            router: router(),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: "Gateway", backlog: 1024),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// The server and the APIs in one group, shut down gracefully on `signals` (or by
    /// `triggerGracefulShutdown()`).
    ///
    /// A group stops its services in reverse order, each after the one before has returned. The
    /// APIs are listed after the server, so they stop first, while the server still answers:
    /// their calls in flight drain (for up to the drain timeout, then they are cancelled), and a
    /// request that arrives meanwhile gets a 503 with `Retry-After` at once rather than a refused
    /// connection, which a load balancer or client retries elsewhere. Only then does the server
    /// stop accepting and finish its requests, which by then wait on no API call. The other way
    /// round, the server would refuse connections while its requests wait for calls bounded only
    /// by their own timeouts, and the drain timeout would bound nothing.
    public func serviceGroup(signals: [UnixSignal] = [], onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> ServiceGroup {
        ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(service: application(onServerRunning: onServerRunning)),
                    .init(service: apis.service),
                ],
                gracefulShutdownSignals: signals,
                logger: logger))
    }

    /// How the gateway's calls ended, and what its APIs' shutdown stopped (once it is over).
    public var summary: GatewaySummary {
        let report = apis.service.shutdownReport
        return GatewaySummary(
            requests: requests.value, calls: apis.ledger.snapshot, inFlightAtShutdown: report?.inFlightAtStart,
            cancelledByService: report?.cancelled, unended: report?.unended)
    }
}

/// The line the gateway prints when it exits: its requests, how its API calls ended, and
/// `lost` (calls started that never ended: 0 when shutdown works).
public struct GatewaySummary: Sendable, Codable {
    /// `/overview` requests received.
    public var requests: Int
    /// The API calls, by how they ended.
    public var calls: CallLedger.Counts
    /// API calls in flight when the shutdown began (nil before a shutdown).
    public var inFlightAtShutdown: Int?
    /// Of those, the calls cancelled after the drain timeout.
    public var cancelledByService: Int?
    /// Calls that did not end even after being cancelled.
    public var unended: Int?

    /// The summary as one JSON object: `started`, `succeeded`, `failed`, `cancelled`, `refused`
    /// and `lost` at the top level beside the shutdown's figures.
    public var jsonLine: String {
        let fields: [(String, Int)] = [
            ("requests", requests), ("started", calls.started), ("succeeded", calls.succeeded), ("failed", calls.failed),
            ("cancelled", calls.cancelled), ("refused", calls.refused), ("lost", calls.lost),
            ("inFlightAtShutdown", inFlightAtShutdown ?? -1), ("cancelledByService", cancelledByService ?? -1), ("unended", unended ?? -1),
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }
}

/// Counts requests.
private final class RequestCounter: Sendable {
    private let count = Mutex(0)

    func increment() { count.withLock { $0 += 1 } }

    var value: Int { count.withLock { $0 } }
}
