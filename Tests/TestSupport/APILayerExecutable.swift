import Foundation
import Testing

/// The `apilayer` executable, built by `swift build`/`swift test` beside the test bundle.
public enum APILayerExecutable {
    /// Where the executable is, looking up from the test bundle; nil when it was not built.
    public static var url: URL? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("apilayer")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// Runs `apilayer` with `arguments` on a thread of its own (its blocking waits never hold a
    /// cooperative thread), with `environment` added to this process's; returns its exit status,
    /// standard output and error.
    public static func run(
        _ arguments: [String], environment: [String: String] = [:]
    ) async throws -> (status: Int32, output: String, error: String) {
        let tool = try #require(url, "the apilayer executable is built beside the tests")
        return try await runChildProcess(tool, arguments, environment: environment)
    }
}
