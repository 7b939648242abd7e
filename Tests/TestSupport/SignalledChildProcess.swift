import Foundation
import NetOps

/// A program run until it prints a line, then sent signals, then waited for.
public struct SignalledRun: Sendable {
    /// The exit status.
    public let status: Int32
    /// Everything it printed on standard output.
    public let output: String
    /// Everything it printed on standard error.
    public let error: String
    /// Seconds from the first signal to its exit; nil when the line never came (then it was
    /// killed after `readyTimeout`).
    public let secondsToExit: Double?
}

/// Runs `executable` on a thread of its own, waits until its standard output has a line equal
/// to `readyLine` (at most `readyTimeout` seconds), sends it `signals` `interval` seconds apart,
/// and returns once it exited. A program that never prints the line is killed.
public func runChildProcess(
    _ executable: URL, _ arguments: [String], signalling signals: [Int32], after readyLine: String,
    interval: TimeInterval = 0.3, readyTimeout: TimeInterval = 60
) async throws -> SignalledRun {
    try await offCooperativePool {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        // Standard error is drained on its own thread: a full pipe would stop the program.
        let errorText = Locked(Data())
        let errorDrained = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let data = error.fileHandleForReading.readDataToEndOfFile()
            errorText.withLock { $0 = data }
            errorDrained.signal()
        }
        try process.run()
        var seen = Data()
        let readyBy = Date().addingTimeInterval(readyTimeout)
        var ready = false
        let reader = output.fileHandleForReading
        while !ready, Date() < readyBy {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            seen.append(chunk)
            ready = String(decoding: seen, as: UTF8.self).split(separator: "\n").contains { $0 == readyLine }
        }
        var signalledAt: Date?
        if ready {
            signalledAt = Date()
            for (index, signal) in signals.enumerated() {
                if index > 0 { Thread.sleep(forTimeInterval: interval) }
                kill(process.processIdentifier, signal)
            }
        } else {
            kill(process.processIdentifier, SIGKILL)
        }
        seen.append(reader.readDataToEndOfFile())
        process.waitUntilExit()
        let exitedAt = Date()
        errorDrained.wait()
        return SignalledRun(
            status: process.terminationStatus, output: String(decoding: seen, as: UTF8.self),
            error: String(decoding: errorText.withLock { $0 }, as: UTF8.self),
            secondsToExit: signalledAt.map { exitedAt.timeIntervalSince($0) })
    }
}
