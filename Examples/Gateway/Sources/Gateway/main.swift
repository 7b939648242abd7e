import Configuration
import Foundation
import GatewayService
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

// `Gateway` serves until SIGTERM or SIGINT, then prints how its API calls ended as one JSON line.
// `Gateway direct [--concurrency 64] [--seconds 10] [--warm-up 1]` makes the same pairs of calls
// without the server (after the warm-up's, not counted) and prints the outgoing calls per second
// as one JSON line.
//
// Configuration, highest priority first: command-line options (`--http-port 8082`), environment
// variables (`HTTP_PORT=8082`), the JSON file `--config-file-path` names, the defaults
// (Docs/service.md lists the keys). Keys ending in `secret` are secrets: never logged.

LoggingSystem.bootstrap(StreamLogHandler.standardError)

let arguments = CommandLineArgumentsProvider(secretsSpecifier: .dynamic { key, _ in key.hasSuffix("-secret") })
let environment = EnvironmentVariablesProvider(secretsSpecifier: .dynamic { key, _ in key.hasSuffix("_SECRET") })
let startup = ConfigReader(providers: [arguments, environment])
var providers: [any ConfigProvider] = [arguments, environment]
if startup.string(forKey: "config.filePath") != nil {
    providers.append(try await FileProvider<JSONSnapshot>(config: startup.scoped(to: "config")))
}
let config = ConfigReader(providers: providers)

var logger = Logger(label: "gateway")
logger.logLevel = Logger.Level(rawValue: config.string(forKey: "log.level", default: "info")) ?? .info

// The APIs' metrics go to this registry explicitly; bootstrapping the process's metrics system
// with it too adds Hummingbird's request metrics to `/metrics`.
let registry = PrometheusCollectorRegistry()
MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))

// A value the gateway cannot use stops it here, naming the key (never a secret's value).
let configuration: GatewayConfiguration
do {
    configuration = try GatewayConfiguration(reading: config)
} catch {
    logger.critical("the configuration cannot be used: \(error)")
    exit(78)  // EX_CONFIG
}
let gateway = GatewayApp(configuration: configuration, registry: registry, logger: logger)
logger.info("sample API: \(configuration.sample)")
logger.info("tracker API: \(configuration.tracker)")

if CommandLine.arguments.dropFirst().first == "direct" {
    let run = await gateway.apis.directLoad(
        concurrency: config.int(forKey: "concurrency", default: 64),
        duration: .milliseconds(Int(config.double(forKey: "seconds", default: 10) * 1000)),
        warmUp: .milliseconds(Int(config.double(forKey: "warmUp", default: 1) * 1000)))
    await gateway.apis.service.stop()
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    print(String(decoding: try encoder.encode(run), as: UTF8.self))
} else {
    let group = gateway.serviceGroup(signals: [.sigterm, .sigint]) { port in
        FileHandle.standardOutput.write(Data("listening on \(port)\n".utf8))
    }
    try await group.run()
    print(gateway.summary.jsonLine)
}
