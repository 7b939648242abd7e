import Foundation

/// Runs a program to its end on a thread of its own (its blocking waits never hold a cooperative
/// thread, so the in-process servers keep answering) and returns its exit status, standard
/// output and standard error. `environment` is added to this process's.
public func runChildProcess(
    _ executable: URL, _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]
) async throws -> (status: Int32, output: String, error: String) {
    try await offCooperativePool {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        }
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}
