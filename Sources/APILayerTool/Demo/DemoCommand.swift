import APILayer
import ArgumentParser
import DemoServer
import Foundation
import Logging
import NetOps
import NetOpsNIO
import SampleAPI
import SampleTemplates
import Templater

/// `apilayer demo`: starts DemoServer on an ephemeral port and runs a scenario through every
/// layer — SampleAPI's methods through APIManager, the Validator and the Mapper, tokens that
/// expire, group operations, transfers with progress, owner cancellation, stubs — printing what
/// happens section by section, then a summary.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the whole stack against an embedded server and print what happens."
    )

    /// The engine under every operation of the demo.
    enum Engine: String, ExpressibleByArgument, CaseIterable {
        case urlsession, nio
    }

    @Flag(help: "Print only the summary, as JSON.")
    var json = false

    @Option(help: "The engine under the operations: urlsession (default) or nio (SwiftNIO, AsyncHTTPClient).")
    var engine: Engine = .urlsession

    @Flag(help: "Trace the demo's API: print the span tree of one section and the metrics the run recorded.")
    var trace = false

    func run() async throws {
        let report = DemoReport(quiet: json)
        let server = try await DemoServer.start()
        report.say("DemoServer listening on \(server.baseURL.absoluteString)")
        // A second server on another origin (another loopback address; another port where that
        // address cannot be bound) for the second API.
        let trackerServer: DemoServer
        do { trackerServer = try await DemoServer.start(host: "127.0.0.2") } catch { trackerServer = try await DemoServer.start() }
        report.say("A second DemoServer (TrackerService) listening on \(trackerServer.baseURL.absoluteString)")

        let templates = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-demo-templates-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: templates) }
        let store = TemplateStore(directory: templates)
        let unpacked = try store.unarchiveDefaultTemplates(from: SampleTemplates.archiveURL)
        report.say("Templates: \(unpacked.installed.count) unpacked from \(SampleTemplates.archiveURL.lastPathComponent)")

        // The demo prints its own account of what happens; the library's log keeps to warnings.
        var logger = Logger(label: "APILayer.demo")
        logger.logLevel = .warning
        let session: NetworkSession? = engine == .nio ? .nio(configuration: NIOEngineConfiguration(concurrency: 16)) : nil
        // The demo's API is a scope of its own, bound to this task: the process's default API is
        // left alone (two demos can run side by side in one process, as the tests do).
        // With --trace the scope reports to a tracer and metrics of its own, in memory: nothing
        // process-wide is bootstrapped.
        let tracing = trace ? DemoTrace() : nil
        let scope = APIScope(
            name: "demo",
            configuration: .init(
                session: session, logger: logger, metricsFactory: tracing?.metrics,
                tracer: tracing?.tracer))
        let realm = "demo"
        await APIManager.withDefaultAPI(scope) {
            let coordinator = SampleAPI.prepareAPIManager(
                baseURL: server.sampleAPIBaseURL(realm: realm), tokenURL: server.tokenURL(realm: realm),
                store: InMemoryTokenStore(SampleAPI.signedOutToken(refreshToken: "seed-demo")), templates: store)
            report.say("APIManager: base URL \(server.sampleAPIBaseURL(realm: realm).absoluteString), signed in with a refresh token")
            report.say("Engine: \(engine == .nio ? "SwiftNIO (AsyncHTTPClient)" : "URLSession (FoundationNetworking)")")
            let scenario = DemoScenario(
                server: server, trackerServer: trackerServer, realm: realm, coordinator: coordinator,
                report: report, session: session, tracing: tracing)
            await scenario.runAll()
            APIManager.removeAuthentication()
        }
        try? await session?.shutdownNIOEngine()
        await server.stop()
        await trackerServer.stop()
        if let tracing, !json {
            await APIManager.telemetryReported()
            print("\nSpan tree of the section \"An expired token\" (in-memory tracer):")
            for line in tracing.spanTree() { print("  " + line) }
            print("\nMetrics of the demo's API (swift-metrics, kept in memory):")
            for line in tracing.metricLines() { print("  " + line) }
        }
        report.finish(json: json)
        if report.failures > 0 { throw ExitCode(1) }
    }
}
