import ArgumentParser
import DemoServer
import Foundation

/// `apilayer serve`: runs DemoServer in the foreground (the benchmarks run it in a child process
/// so its CPU time and memory are not counted against the client).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run DemoServer until standard input closes or the process is terminated.",
        shouldDisplay: false
    )

    @Option(help: "The port to listen on (0: the system picks).")
    var port = 0

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    func run() async throws {
        let server = try await DemoServer.start(host: host, port: port)
        print("listening on \(server.port)")
        fflush(nil)
        // Stop when the parent closes our standard input.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                while let line = readLine(strippingNewline: true) {
                    if line == "stop" { break }
                }
                continuation.resume()
            }.start()
        }
        await server.stop()
    }
}
