import ArgumentParser

/// `apilayer bench …`: benchmarks that print each figure against a baseline measured in the same run.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure APILayer against a baseline measured in the same run.",
        subcommands: [
            NetOpsBench.self, EnginesBench.self, ValidatorBench.self, PipelineBench.self, TemplaterBench.self, AuthBench.self, HTTPBench.self,
            GatewayBench.self, ReplicasBench.self, SoakBench.self, InferBench.self,
        ]
    )
}
