import ArgumentParser
import Crypto
import DemoServer
import Foundation
import NetOps

/// `apilayer demo`: starts DemoServer and runs a scenario through the stack, printing what
/// happens section by section and a summary.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the whole stack against an embedded server and print what happens."
    )

    @Flag(help: "Print only the summary, as JSON.")
    var json = false

    func run() async throws {
        let server = try await DemoServer.start()
        let report = DemoReport(quiet: json)
        report.say("DemoServer listening on \(server.baseURL.absoluteString)")
        let scenario = DemoScenario(base: server.baseURL, report: report)
        await scenario.runAll()
        await server.stop()
        report.finish(json: json)
        if report.failures > 0 { throw ExitCode(1) }
    }
}

/// Prints the demo's sections and keeps the tally for the summary.
final class DemoReport: @unchecked Sendable {
    struct Check: Encodable {
        let section: String
        let passed: Bool
        let detail: String
    }

    private let lock = NSLock()
    private var checks: [Check] = []
    private var currentSection = ""
    private let started = Date()
    let quiet: Bool

    init(quiet: Bool) { self.quiet = quiet }

    var failures: Int { lock.withLock { checks.filter { !$0.passed }.count } }

    func section(_ title: String) {
        lock.withLock { currentSection = title }
        say("\n== \(title)")
    }

    func say(_ line: String) {
        guard !quiet else { return }
        print(line)
        fflush(nil)
    }

    /// Records a check and prints it with a mark.
    func check(_ passed: Bool, _ detail: String) {
        lock.withLock { checks.append(Check(section: currentSection, passed: passed, detail: detail)) }
        say("  \(passed ? "✓" : "✗") \(detail)")
    }

    /// A progress bar drawn in place on a terminal, or every quarter otherwise.
    func progressBar(_ label: String) -> @Sendable (TransferProgress) -> Void {
        let lastQuarter = Locked(-1)
        let terminal = isatty(STDOUT_FILENO) == 1
        return { [quiet] progress in
            guard !quiet, let fraction = progress.fractionCompleted else { return }
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            let text = String(format: "  %@ [%@] %3.0f%%", label, bar, fraction * 100)
            if terminal {
                print("\r" + text, terminator: fraction >= 1 ? "\n" : "")
                fflush(nil)
            } else {
                let quarter = Int(fraction * 4)
                let isNew = lastQuarter.withLock { last -> Bool in
                    guard quarter > last else { return false }
                    last = quarter
                    return true
                }
                if isNew { print(text); fflush(nil) }
            }
        }
    }

    func finish(json: Bool) {
        let all = lock.withLock { checks }
        let seconds = Date().timeIntervalSince(started)
        if json {
            struct Summary: Encodable {
                let passed: Int
                let failed: Int
                let seconds: Double
                let checks: [Check]
            }
            let summary = Summary(passed: all.filter(\.passed).count, failed: all.filter { !$0.passed }.count,
                                  seconds: (seconds * 100).rounded() / 100, checks: all)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: (try? encoder.encode(summary)) ?? Data(), as: UTF8.self))
        } else {
            print("\n== Summary")
            print("  \(all.filter(\.passed).count) checks passed, \(all.filter { !$0.passed }.count) failed, in \(String(format: "%.1f", seconds)) s")
        }
    }
}

/// The demo's scenario: one method per section.
struct DemoScenario {
    let base: URL
    let report: DemoReport

    func runAll() async {
        await getJSON()
        await queueOfOperations()
        await downloadWithProgress()
        await suspendAndResume()
        await uploadWithProgress()
        await ownerCancellation()
        await timeouts()
    }

    private func url(_ path: String) -> URL {
        URL(string: path, relativeTo: base)!.absoluteURL
    }

    private func hex(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    func getJSON() async {
        report.section("A GET through DataTaskOperation")
        let operation = DTO.get(url("json"))
        _ = try? await operation.run()
        let name = (operation.json as? [String: Any])?["name"] as? String
        report.check(operation.state == .successFinished && name == "APILayer",
                     "GET /json → \(operation.statusCode ?? 0), state \(operation.stateDescription), name \(name ?? "nil")")
    }

    func queueOfOperations() async {
        report.section("24 operations through an OperationQueue (4 at a time)")
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        let operations = (0..<24).map { index in DTO.get(url("delay?seconds=0.05"), parameters: ["n": index]) }
        let started = Date()
        for operation in operations { queue.addOperation(operation) }
        for operation in operations { await operation.finished() }
        let succeeded = operations.filter { $0.state == .successFinished }.count
        report.check(succeeded == 24, "\(succeeded)/24 succeeded in \(String(format: "%.2f", Date().timeIntervalSince(started))) s")
    }

    func downloadWithProgress() async {
        report.section("A 64 MiB download streamed to a file")
        let size = 64 << 20
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let bar = report.progressBar("download")
        let operation = DO.get(url("bytes/\(size)"), to: directory.appendingPathComponent("payload.bin"))
            .onProgress { _, progress in bar(progress) }
        _ = try? await operation.run()
        let bytes = (try? Data(contentsOf: operation.destination)) ?? Data()
        report.check(hex(bytes) == hex(DemoPayload.data(size: size)), "\(bytes.count) bytes on disk, SHA-256 matches the server's payload")
    }

    func suspendAndResume() async {
        report.section("Suspend and resume mid-download (Range + If-Range)")
        let size = 6 << 20
        let operation = DTO.get(url("bytes/\(size)?rate=\(4 << 20)"))
        operation.start()
        for pause in 1...3 {
            let threshold = Int64(size * pause / 4)
            while operation.progress.bytesReceived < threshold, operation.isWorkingOrInProcess {
                try? await Task.sleep(for: .milliseconds(10))
            }
            guard operation.suspend() else { break }
            report.say("  suspended at \(operation.progress.bytesReceived) bytes")
            try? await Task.sleep(for: .milliseconds(200))
            operation.resume()
        }
        await operation.finished()
        let counts = operation.resumptionCounts
        report.check(hex(operation.receivedData) == hex(DemoPayload.data(size: size)),
                     "\(operation.receivedData.count) bytes, byte-identical after \(counts.ranged) ranged resumptions")
    }

    func uploadWithProgress() async {
        report.section("A 16 MiB upload from memory")
        let body = DemoPayload.data(size: 16 << 20)
        let bar = report.progressBar("upload  ")
        let operation = UO.upload(body, to: url("upload")).onProgress { _, progress in
            var sending = progress
            sending.totalBytesToReceive = nil
            bar(sending)
        }
        _ = try? await operation.run()
        let receipt = (operation.json as? [String: Any])?["sha256"] as? String
        report.check(receipt == hex(body), "server received \(body.count) bytes with the same SHA-256")
    }

    func ownerCancellation() async {
        report.section("Cancel every queued operation of one owner")
        final class Screen {}
        let screen = Screen()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 2
        let operations = (0..<10).map { _ in DTO.get(url("delay?seconds=2")) }
        for operation in operations {
            operation.owner = screen
            queue.addOperation(operation)
        }
        let cancelled = BaseOperation.cancelAllOperations(ownedBy: screen, in: queue)
        for operation in operations { await operation.finished() }
        report.check(cancelled == 10 && operations.allSatisfy { $0.state == .cancelled },
                     "\(cancelled) operations cancelled, each ended .cancelled")
    }

    func timeouts() async {
        report.section("A fractional idle timeout (FoundationNetworking would truncate 0.5 s to 0)")
        let operation = DTO.get(url("delay?seconds=3"))
        operation.idleTimeout = 0.5
        let started = Date()
        _ = try? await operation.run()
        let elapsed = Date().timeIntervalSince(started)
        report.check(operation.error?.isTimeout == true && abs(elapsed - 0.5) < 0.3,
                     "failed after \(String(format: "%.2f", elapsed)) s: \(operation.error.map(String.init(describing:)) ?? "no error")")
    }
}
