import Foundation

/// `apilayer replica` in a child process: started, told to go, read for its report, or killed.
final class ReplicaProcess {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    /// The child's standard error, kept in a file for the report of a failure.
    private let errorFile: URL

    /// Starts `apilayer replica` with `arguments`, the sealing key in its environment.
    init(arguments: [String], key: Data) throws {
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["replica"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["APILAYER_TOKEN_KEY"] = key.base64EncodedString()
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-replica-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
    }

    deinit {
        try? FileManager.default.removeItem(at: errorFile)
    }

    /// The child's process identifier.
    var pid: Int32 { process.processIdentifier }

    /// Waits for the child's `ready` line.
    func waitUntilReady() throws {
        let line = readLine()
        guard line == "ready" else { throw ReplicaFailure("a replica did not start: '\(line)' \(errors)") }
    }

    /// Lets a child started with `--wait-for-go` call.
    func go() {
        try? input.fileHandleForWriting.write(contentsOf: Data("go\n".utf8))
    }

    /// Waits for the child to end and reads its report.
    func report() throws -> ReplicaReport {
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: rest, as: UTF8.self)
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
            let report = try? JSONDecoder().decode(ReplicaReport.self, from: Data(line.utf8))
        else { throw ReplicaFailure("a replica printed no report (status \(process.terminationStatus)): \(text) \(errors)") }
        return report
    }

    /// Kills the child at once (SIGKILL) and waits for it.
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    private var errors: String {
        String((try? String(contentsOf: errorFile, encoding: .utf8))?.suffix(2_000) ?? "")
    }

    /// One line of the child's output, read byte by byte so that nothing after it is consumed.
    private func readLine() -> String {
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }
}

/// Why a replica run failed.
struct ReplicaFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
