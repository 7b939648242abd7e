import ArgumentParser

/// The `apilayer` command-line tool: the demo, response validation, template archives benchmarks and chaos runs.
@main
struct APILayerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apilayer",
        abstract: "A layered network stack for Swift services on Linux.",
        subcommands: [
            DemoCommand.self, ValidateCommand.self, TemplatesCommand.self, BenchCommand.self, ServeCommand.self, TokenWriterCommand.self,
            ChaosCommand.self, ConnectivityCommand.self, EngineCheckCommand.self, ShutdownDrillCommand.self, ReplicaCommand.self,
        ]
    )
}
