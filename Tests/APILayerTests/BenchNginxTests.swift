import Foundation
import TestSupport
import Testing

/// `apilayer bench engines --server nginx`: the private nginx starts, serves the requests of a
/// short run, and is gone afterwards; without nginx the bench says how to install it.
@Suite(.processGate(.exclusive, minutes: 3))
struct BenchNginxTests {
    struct Report: Decodable {
        struct Figure: Decodable {
            let name: String
            let value: Double
        }
        let figures: [Figure]
    }

    static func leftovers(in folder: URL) -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return Set(names.filter { $0.hasPrefix("apilayer-nginx-") })
    }

    /// A temporary folder for one bench run (its `TMPDIR`): what another process leaves in the
    /// machine's temporary folder at the same time is not this run's.
    static func runFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-nginx-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Exclusive: the short run still loads both cores for a few seconds.
    @Test(.requires(.nginx)) func aShortRunAgainstAPrivateNginx() async throws {
        let folder = try Self.runFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try await APILayerExecutable.run(
            [
                "bench", "engines", "--server", "nginx", "--requests", "50", "--rounds", "1", "--transfer-mib", "0", "--json",
            ], environment: ["TMPDIR": folder.path])
        #expect(run.status == 0, "\(run.error)")
        let json = try #require(run.output.firstIndex(of: "{").map { run.output[$0...] }, "no JSON: \(run.output)")
        let report = try JSONDecoder().decode(Report.self, from: Data(json.utf8))
        let names = Set(report.figures.map(\.name))
        for name in [
            "nio-run-vs-ahc-c1", "nio-run-vs-ahc-async-c64", "ahc-async-vs-ahc-c8", "nio-cpu-per-request-c64", "memory-per-queued-operation",
        ] {
            #expect(names.contains(name), "\(name) missing")
        }
        #expect(report.figures.first { $0.name == "nio-run-vs-ahc-c1" }.map { $0.value > 0 } == true)
        #expect(Self.leftovers(in: folder).isEmpty, "the nginx folder was left behind")
    }

    /// `--server nginx-tls`: HTTP/2 over TLS against raw AsyncHTTPClient, the handshakes of
    /// 200 requests on one scope's settings, and a short stream.
    @Test(.requires(.nginx, .openssl)) func aShortRunAgainstAPrivateNginxOverTLS() async throws {
        let folder = try Self.runFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try await APILayerExecutable.run(
            [
                "bench", "engines", "--server", "nginx-tls", "--requests", "50", "--rounds", "1", "--handshake-requests", "200",
                "--transfer-mib", "8", "--json",
            ], environment: ["TMPDIR": folder.path])
        #expect(run.status == 0, "\(run.error)")
        let json = try #require(run.output.firstIndex(of: "{").map { run.output[$0...] }, "no JSON: \(run.output)")
        let report = try JSONDecoder().decode(Report.self, from: Data(json.utf8))
        let values = Dictionary(report.figures.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        #expect((values["nio-h2-vs-ahc-h2-c64"] ?? 0) > 0)
        #expect(values["nio-h2-vs-h1-c64"] != nil)
        let handshakes = try #require(values["tls-handshakes"])
        #expect(handshakes >= 1 && handshakes <= 16, "\(handshakes) TLS connections for 200 requests")
        // An 8 MiB stream: its figures are there; their size says nothing at that length.
        for name in ["stream-8mib-rss-over-baseline", "raw-ahc-stream-8mib-rss-over-baseline", "stream-vs-ahc-throughput"] {
            #expect(values[name] != nil, "\(name) missing")
        }
        #expect((values["stream-vs-ahc-throughput"] ?? 0) > 0)
        #expect(Self.leftovers(in: folder).isEmpty, "the nginx folder was left behind")
    }

    @Test func aMissingNginxIsAClearError() async throws {
        let run = try await APILayerExecutable.run(
            ["bench", "engines", "--server", "nginx", "--requests", "10", "--rounds", "1", "--transfer-mib", "0"],
            environment: ["APILAYER_NGINX": "/nonexistent/nginx"])
        #expect(run.status != 0)
        #expect(run.error.contains("nginx-light"), "\(run.error)")
    }
}
