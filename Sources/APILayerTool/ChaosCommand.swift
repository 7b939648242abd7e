import ArgumentParser
import Chaos
import DemoServer
import Foundation
import Logging

/// `apilayer chaos`: many operations of every kind against DemoServer's fault routes while
/// other threads cancel, suspend and resume them; exits nonzero on any violation.
struct ChaosCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chaos",
        abstract: "Run operations against fault routes under random cancel/suspend/resume; check nothing hangs or leaks."
    )

    @Option(help: "Top-level operations to run.")
    var ops = 2_000

    @Option(help: "The seed of the plan (random when omitted).")
    var seed: UInt64?

    @Option(
        help: "The engine: urlsession, nio, or nio-loop (NIO with completions on the event loop).",
        transform: { text in
            guard let engine = ChaosEngine(rawValue: text.lowercased()) else {
                throw ValidationError("unknown engine '\(text)' (urlsession, nio or nio-loop)")
            }
            return engine
        })
    var engine: ChaosEngine = .urlsession

    @Flag(help: "Print the figures as JSON.")
    var json = false

    @Option(help: "Seconds without progress before the watchdog declares the rest hung.")
    var stallLimit: Double = 60

    @Flag(help: "Log every operation's end to standard error.")
    var verbose = false

    func validate() throws {
        guard ops > 0 else { throw ValidationError("--ops must be positive") }
    }

    func run() async throws {
        var logger = Logger(label: "apilayer.chaos") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = verbose ? .debug : .warning
        let seed = self.seed ?? UInt64.random(in: 1...UInt64(UInt32.max))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-chaos-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }

        var options = ChaosOptions(operations: ops, seed: seed, engine: engine, workDirectory: folder, logger: logger)
        options.stallLimit = stallLimit
        // The server is not stopped: a graceful stop waits for the client's idle keep-alive
        // connections, and the process ends right after the report anyway.
        let server = try await DemoServer.start()
        let report = try await ChaosRunner.run(options, against: server)
        if json {
            print(report.json())
        } else {
            print("seed \(seed), engine \(engine.rawValue)")
            print(report.summary)
        }
        fflush(nil)
        if !report.isClean { throw ExitCode(1) }
    }
}
