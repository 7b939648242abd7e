import Chaos
import DemoServer
import Foundation
import TestSupport
import Testing

/// The bounded chaos run of every CI run: 2 000 operations of every kind against the fault
/// routes (API calls through a scope with the cache, coalescing, rate limits and a breaker
/// among them) under random cancel/suspend/resume, with nothing hung, completed twice, leaked or
/// left on disk — and no token in any log line.
///
/// Each run (one per engine) holds the process gate exclusively: it saturates the process's one
/// URLSession queue and both cores. Waiting for the gate counts against the time limit.
@Suite(.timeLimit(.minutes(8)))
struct ChaosRunTests {
    @Test(.processGate(.exclusive), arguments: ChaosEngine.allCases)
    func twoThousandOperationsEndCleanAndLogNoToken(engine: ChaosEngine) async throws {
        let server = try await DemoServer.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chaos-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let capture = LogCapture()
        var options = ChaosOptions(operations: 2_000, seed: 20_261_121, engine: engine, workDirectory: folder, logger: capture.logger())
        options.stallLimit = 45
        let report = try await ChaosRunner.run(options, against: server)
        // Not stopped: a graceful stop would wait for URLSession's idle keep-alive connections.

        #expect(report.ops == 2_000)
        #expect(report.final == 2_000)
        #expect(report.hung == 0, "\(report.stuck)")
        #expect(report.doubleCompletions == 0, "\(report.stuck)")
        #expect(report.leaked == 0, "\(report.stuck)")
        #expect(report.tempFilesLeft == 0, "\(report.stuck)")
        #expect(report.corruptFiles == 0, "\(report.stuck)")
        #expect(report.isClean, "\(report.summary)")
        // Every operation ended one way or another. (Which ways is not asserted: under
        // ThreadSanitizer the run is so slow that deadlines and agitators end nearly all.)
        #expect(report.states.values.reduce(0, +) == 2_000, "\(report.states)")
        // The breaker fault mode drove its circuit open (and through probes, closed again).
        #expect(report.circuitOpens > 0, "\(report.summary)")
        // The scope's calls went through its stages: its cache answered some of them.
        #expect(report.cacheHits + report.cacheRevalidations > 0, "\(report.summary)")

        // The realm issues `at-<n>-<hex>` and `rt-<n>-<hex>`; the run seeds `seed-chaos` and an
        // unissued `chaos-unissued-…`. None of them may appear in any log line.
        let log = capture.text
        #expect(capture.count > 2_000)
        for pattern in [#"at-[0-9]+-[0-9A-F]{8}"#, #"rt-[0-9]+-[0-9A-F]{8}"#, "seed-chaos", "chaos-unissued-"] {
            #expect(log.range(of: pattern, options: .regularExpression) == nil, "a token matching \(pattern) was logged")
        }
    }

    @Test func reportUsesTheIssueFigureNames() throws {
        var report = ChaosReport()
        report.ops = 3
        report.final = 3
        let object = try #require(try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any])
        for key in [
            "ops", "final", "hung", "double-completions", "leaked", "temp-files-left", "corrupt-files", "seconds", "circuit-opens",
            "circuit-refusals", "cache-hits", "cache-revalidations", "coalesced", "rate-limit-waits", "scope-circuit-opens",
        ] {
            #expect(object[key] != nil, "missing \(key)")
        }
        #expect(report.isClean)
    }
}
