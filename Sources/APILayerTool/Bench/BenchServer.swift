import ArgumentParser
import Foundation

/// The `--url` option of the network benchmarks, and the server it chooses.
struct BenchServer: ParsableArguments {
    @Option(help: "A server to measure against (default: DemoServer in a child process).")
    var url: String?

    /// What the report's notes call the server.
    var label: String { url ?? "DemoServer in a child process" }

    /// The base URL to measure against, and the DemoServer child started for it (nil with
    /// `--url`); stop the child when done.
    func start() throws -> (base: URL, child: ServerProcess?) {
        guard let url else {
            let child = try ServerProcess()
            return (child.baseURL, child)
        }
        guard let base = URL(string: url) else { throw ValidationError("--url is not a URL") }
        return (base, nil)
    }
}
