import Configuration
import DemoServer
import Foundation
import GatewayService
import Logging
import ServiceLifecycle

/// A gateway running in this process on a port the system picked, its service group run by a
/// task of its own, against a DemoServer realm of the test's own.
struct RunningGateway {
    let app: GatewayApp
    let group: ServiceGroup
    let run: Task<Void, any Error>
    let port: Int

    /// `http://127.0.0.1:PORT` + `path`.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Starts a gateway calling `server`'s APIs in `realm`, configured as its executable would be
    /// by `values` (over the port, DemoServer's URL and the realm).
    static func start(
        against server: DemoServer, realm: String, drainTimeout: Double = 10, values: [AbsoluteConfigKey: ConfigValue] = [:]
    ) async throws -> RunningGateway {
        var settings: [AbsoluteConfigKey: ConfigValue] = [
            "http.port": 0, "demo.realm": ConfigValue(.string(realm), isSecret: false),
            "demo.url": ConfigValue(.string(server.baseURL.absoluteString), isSecret: false),
            "shutdown.drainTimeout": ConfigValue(.double(drainTimeout), isSecret: false),
        ]
        settings.merge(values) { $1 }
        let configuration = try GatewayConfiguration(reading: ConfigReader(provider: InMemoryProvider(values: settings)))
        var logger = Logger(label: "gateway-test")
        logger.logLevel = .warning
        let app = GatewayApp(configuration: configuration, logger: logger)
        let (ports, announce) = AsyncStream<Int>.makeStream()
        let group = app.serviceGroup { port in
            announce.yield(port)
            announce.finish()
        }
        let run = Task {
            defer { announce.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            run.cancel()
            throw GatewayDidNotStart(reason: "\(await run.result)")
        }
        return RunningGateway(app: app, group: group, run: run, port: port)
    }

    /// Shuts the group down gracefully, as SIGTERM would, and waits until it has.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await run.value
    }
}

struct GatewayDidNotStart: Error, CustomStringConvertible {
    let reason: String
    var description: String { "the gateway did not start: \(reason)" }
}
