import Foundation
import LocalPostgres
import TestSupport
import Testing

/// Replicas as real child processes: `apilayer bench replicas` (small) starts its own
/// PostgreSQL cluster and DemoServer, a storm of replica processes on an expired token, the same
/// storm in one process, and a SIGKILL of the replica holding the refresh lease.
@Suite("apilayer bench replicas", .requires(.postgresql), .processGate(.shared, minutes: 5))
struct ReplicasBenchTests {
    struct Report: Decodable {
        struct Figure: Decodable {
            let name: String
            let value: Double
            let baseline: Double?
        }
        let suite: String
        let figures: [Figure]
    }

    /// Four replicas of 50 calls: one refresh, no failed call, a takeover within the lease + 1 s.
    @Test func aFleetRefreshesOnceAndTakesOverAfterSIGKILL() async throws {
        let lease = 2.0
        let run = try await APILayerExecutable.run(["bench", "replicas", "--replicas", "4", "--calls", "50", "--lease", "\(lease)", "--json"])
        #expect(run.status == 0, "stderr: \(run.error.suffix(2_000))")
        let line = try #require(run.output.split(separator: "\n").last { $0.hasPrefix("{") }, "no report: \(run.output) \(run.error.suffix(2_000))")
        let report = try JSONDecoder().decode(Report.self, from: Data(line.utf8))
        let figures = Dictionary(uniqueKeysWithValues: report.figures.map { ($0.name, $0) })
        #expect(report.suite == "replicas")
        #expect(figures["replica-refreshes"]?.value == 1)
        #expect(figures["replica-failed-calls"]?.value == 0)
        let takeover = try #require(figures["replica-takeover-seconds"]?.value)
        #expect(takeover > 0 && takeover <= lease + 1, "took \(takeover) s")
        #expect((figures["replica-refresh-vs-local"]?.baseline ?? 0) > 0)
    }
}
