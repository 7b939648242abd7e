import APILayer
import ArgumentParser
import Foundation
import Logging
import NetOps
import NetOpsNIO
import ServiceLifecycle

/// `apilayer shutdown-drill`: a service under load that a test stops with SIGTERM. Workers call
/// one API without pause (every `--slow-every`th worker slow calls, the others quick ones) through an
/// `APIService` in a `ServiceGroup`; `ready` is printed once calls flow. On SIGTERM the group
/// shuts down gracefully; the drill then prints one JSON object: how every call ended, and
/// `lost` (started but never ended) and `endedTwice`, both 0 when shutdown works.
struct ShutdownDrillCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shutdown-drill",
        abstract: "Call an API under load until SIGTERM, shut down gracefully, print how every call ended.",
        shouldDisplay: false
    )

    @Option(help: "A DemoServer's base URL (answers GET /delay?seconds=).")
    var url: String

    @Option(help: "nio or urlsession.")
    var engine: String = "nio"

    @Option(help: "Calls in flight at once.")
    var concurrency = 16

    @Option(help: "Every Nth worker asks for slow answers (--slow-seconds); the others for quick ones (--quick-seconds).")
    var slowEvery = 4

    @Option(help: "Seconds a quick answer takes: shorter than the drain, so those calls finish.")
    var quickSeconds = 0.05

    @Option(help: "Seconds a slow answer takes: longer than the drain, so those calls are cancelled.")
    var slowSeconds = 30.0

    @Option(help: "The service's drain timeout in seconds.")
    var drainSeconds = 1.0

    func run() async throws {
        guard let base = URL(string: url) else { throw ValidationError("--url is not a URL") }
        let session: NetworkSession
        switch engine {
        case "nio": session = .nio()
        case "urlsession": session = NetworkSession()
        default: throw ValidationError("--engine is nio or urlsession")
        }
        var logger = Logger(label: "apilayer.shutdown-drill")
        logger.logLevel = .info
        let scope = APIScope(name: "drill", configuration: APIScope.Configuration(baseURL: base, session: session, logger: logger))
        let apis = APIService(scopes: [scope], configuration: .init(drainTimeout: .milliseconds(Int(drainSeconds * 1000))), logger: logger)
        let ledger = DrillLedger()
        let load = DrillLoad(
            scope: scope, base: base, concurrency: concurrency, slowEvery: slowEvery, quickSeconds: quickSeconds, slowSeconds: slowSeconds,
            ledger: ledger)
        // Listed last, the APIs shut down first: the load keeps calling and sees refusals while
        // the calls in flight drain.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: load), .init(service: apis)], gracefulShutdownSignals: [.sigterm], logger: logger))
        try await group.run()
        let report = apis.shutdownReport
        let summary = ledger.summary()
        let fields: [(String, Any)] = [
            ("started", summary.started), ("succeeded", summary.succeeded), ("failed", summary.failed),
            ("cancelled", summary.cancelled), ("refused", summary.refused), ("endedTwice", summary.endedTwice),
            ("lost", summary.started - summary.ended), ("inFlightAtShutdown", report?.inFlightAtStart ?? -1),
            ("cancelledByService", report?.cancelled ?? -1), ("unended", report?.unended ?? -1),
            ("sessionsShutDown", report?.sessionsShutDown ?? -1),
        ]
        print("{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}")
    }
}

/// How the drill's calls ended, each counted once by its operation's own end.
private final class DrillLedger: Sendable {
    struct Summary {
        var started = 0
        var ended = 0
        var succeeded = 0
        var failed = 0
        var cancelled = 0
        var refused = 0
        var endedTwice = 0
    }

    private let state = Locked((summary: Summary(), ended: Set<Int>()))

    func started() {
        state.withLock { $0.summary.started += 1 }
    }

    func ended(_ call: Int, _ operation: BaseOperation) {
        let refused = operation.error.map { "\($0)".contains("takes no new calls") } ?? false
        state.withLock { state in
            guard state.ended.insert(call).inserted else {
                state.summary.endedTwice += 1
                return
            }
            state.summary.ended += 1
            if operation.error == nil {
                state.summary.succeeded += 1
            } else if refused {
                state.summary.refused += 1
            } else if case .cancelled? = operation.error?.kind {
                state.summary.cancelled += 1
            } else {
                state.summary.failed += 1
            }
        }
    }

    func summary() -> Summary { state.withLock { $0.summary } }

    var endedCount: Int { state.withLock { $0.summary.ended } }
}

/// Workers that call the API until it refuses or the group stops them; `ready` once calls flow.
private struct DrillLoad: Service {
    let scope: APIScope
    let base: URL
    let concurrency: Int
    let slowEvery: Int
    let quickSeconds: Double
    let slowSeconds: Double
    let ledger: DrillLedger

    func run() async throws {
        let numbers = Locked(0)
        let announced = Locked(false)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                let seconds = worker % max(1, slowEvery) == 0 ? slowSeconds : quickSeconds
                group.addTask {
                    while !Task.isCancelled {
                        let call = numbers.withLock { number -> Int in
                            number += 1
                            return number
                        }
                        var components = URLComponents(url: base.appendingPathComponent("delay"), resolvingAgainstBaseURL: false)
                        components?.queryItems = [URLQueryItem(name: "seconds", value: "\(seconds)")]
                        guard let url = components?.url else { return }
                        let operation = DataTaskOperation.get(url)
                        scope.adopt(operation)
                        operation.onCompletion { [ledger] in ledger.ended(call, $0) }
                        ledger.started()
                        await withTaskCancellationHandler {
                            _ = try? await operation.run()
                        } onCancel: {
                            operation.cancel()
                        }
                        let flowing = ledger.endedCount >= 2 * concurrency
                        let announce =
                            flowing
                            && announced.withLock { flag -> Bool in
                                defer { flag = true }
                                return !flag
                            }
                        if announce {
                            FileHandle.standardOutput.write(Data("ready\n".utf8))
                        }
                        // Refused: the APIs stopped; the group's shutdown reaches this service next.
                        if scope.isStopping, operation.error != nil {
                            try? await gracefulShutdown()
                            return
                        }
                    }
                }
            }
        }
    }
}
