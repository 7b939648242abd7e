import ArgumentParser
import Foundation
import NetOps
import NetOpsNIO

/// `apilayer connectivity`: checks whether this machine can reach the network, as an operation
/// that failed to connect would, and optionally makes one request to show how its failure is
/// classified.
///
/// Exit status: 0 online, 1 offline, 2 bad input.
struct ConnectivityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connectivity",
        abstract: "Check whether this machine can reach the network.",
        discussion: """
            Checks the interfaces (one other than loopback up, with an address beyond its link), \
            then each --resolve host (any must resolve), then --probe-url (it must answer). \
            --try makes one GET first and prints how its failure was classified (offline or \
            cannotConnect). Exit status: 0 online, 1 offline, 2 bad input.
            """
    )

    @Option(name: .customLong("resolve"), help: "A host name the resolver must resolve (repeatable).")
    var resolverHosts: [String] = []

    @Option(help: "A URL that must answer, whatever its status.")
    var probeURL: String?

    @Option(help: "Seconds a lookup or the probe URL may take.")
    var timeout: Double = 3

    @Option(name: .customLong("try"), help: "A URL to GET first, with the monitor attached.")
    var tryURL: String?

    @Option(help: "The engine of the --try request: urlsession (default) or nio.")
    var engine: DemoCommand.Engine = .urlsession

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() async throws {
        var probe: URL?
        if let probeURL {
            guard let url = URL(string: probeURL), url.scheme != nil else {
                FileHandle.standardError.write(Data("not a URL: \(probeURL)\n".utf8))
                throw ExitCode(2)
            }
            probe = url
        }
        let monitor = ConnectivityMonitor(
            configuration: .init(
                resolverProbeHosts: resolverHosts, probeURL: probe, probeTimeout: timeout))
        var report: [String: Any] = ["interfaces": NetworkInterfaces.usable()]
        var lines: [String] = []
        if let tryURL {
            let attempt = await tryRequest(tryURL, monitor: monitor)
            report["request"] = attempt
            lines.append("request \(tryURL): \(attempt["outcome"] ?? "")\((attempt["detail"]).map { " — \($0)" } ?? "")")
        }
        let status = await monitor.check()
        report["online"] = status.isOnline
        if case let .offline(reason) = status { report["reason"] = reason }
        lines.append(status.description)
        if json {
            let data = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            for line in lines { print(line) }
        }
        if !status.isOnline { throw ExitCode(1) }
    }

    private func tryRequest(_ text: String, monitor: ConnectivityMonitor) async -> [String: String] {
        // The check reports what one attempt meets: a connection the engine retried until its
        // connect timeout would outlast the request's own timeout and hide the cause.
        var configuration = NIOEngineConfiguration()
        configuration.retriesConnectionEstablishment = false
        let session: NetworkSession? = engine == .nio ? .nio(configuration: configuration) : nil
        let operation = DataTaskOperation.get(text)
        if let session { operation.privateSession = session }
        operation.connectivityMonitor = monitor
        operation.totalTimeout = timeout
        operation.acceptableStatusCodes = Set(100..<600)
        let outcome: [String: String]
        do {
            _ = try await operation.run()
            outcome = ["outcome": "ok", "detail": "HTTP \(operation.response?.statusCode ?? 0)"]
        } catch let error as NetOpsError {
            outcome = ["outcome": error.kind.name, "detail": error.description]
        } catch {
            outcome = ["outcome": "error", "detail": String(describing: error)]
        }
        try? await session?.shutdownNIOEngine()
        return outcome
    }
}
