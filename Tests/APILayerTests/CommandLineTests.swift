import Foundation
import TestSupport
import Testing

/// `apilayer validate`: its exit codes and output formats, as outside tools read them.
@Suite(.timeLimit(.minutes(1)))
struct ValidateCommandTests {
    static func files(template: String, response: String) throws -> (template: String, response: String, directory: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-validate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let templateFile = directory.appendingPathComponent("template.json")
        let responseFile = directory.appendingPathComponent("response.json")
        try Data(template.utf8).write(to: templateFile)
        try Data(response.utf8).write(to: responseFile)
        return (templateFile.path, responseFile.path, directory)
    }

    static let template = #"{"id": 1, "name": "x", "name-Rules": {"lengthMustBeEqualOrGreaterThan": 2}, "city": {"title": "t"}}"#

    @Test func validResponseExitsZero() async throws {
        let files = try Self.files(template: Self.template, response: #"{"id": 5, "name": "Ann", "city": {"title": "Oslo"}, "extra": true}"#)
        defer { try? FileManager.default.removeItem(at: files.directory) }
        let result = try await APILayerExecutable.run(["validate", files.response, "--template", files.template])
        #expect(result.status == 0)
    }

    @Test func invalidResponseExitsOneWithOneLinePerError() async throws {
        let files = try Self.files(template: Self.template, response: #"{"id": "5", "name": "A", "city": {}}"#)
        defer { try? FileManager.default.removeItem(at: files.directory) }
        let result = try await APILayerExecutable.run(["validate", files.response, "--template", files.template])
        #expect(result.status == 1)
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.contains { $0.hasPrefix("/id: ") })
        #expect(lines.contains { $0.hasPrefix("/name: lengthMustBeEqualOrGreaterThan") })
        #expect(lines.contains { $0.hasPrefix("/city/title: ") })

        let json = try await APILayerExecutable.run(["validate", files.response, "--template", files.template, "--json"])
        #expect(json.status == 1)
        let errors = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]]
        #expect(errors?.count == 3)
        #expect(errors?.allSatisfy { Set($0.keys).isSuperset(of: ["path", "rule", "expected", "actual"]) } == true)

        let first = try await APILayerExecutable.run(["validate", files.response, "--template", files.template, "--fail-fast"])
        #expect(first.status == 1)
        #expect(first.output.split(separator: "\n").count == 1)
    }

    @Test func badInputExitsTwoWithTheReasonOnStandardError() async throws {
        let files = try Self.files(template: #"{"id": 1, "id-Rules": {"noSuchRule": 1}}"#, response: "{not json")
        defer { try? FileManager.default.removeItem(at: files.directory) }
        let missing = try await APILayerExecutable.run([
            "validate", files.directory.appendingPathComponent("absent.json").path, "--template", files.template,
        ])
        #expect(missing.status == 2)
        #expect(!missing.error.isEmpty)
        let notJSON = try await APILayerExecutable.run(["validate", files.response, "--template", files.template])
        #expect(notJSON.status == 2)
        let badTemplate = try Self.files(template: #"{"id": 1, "id-Rules": {"noSuchRule": 1}}"#, response: #"{"id": 1}"#)
        defer { try? FileManager.default.removeItem(at: badTemplate.directory) }
        let templateError = try await APILayerExecutable.run(["validate", badTemplate.response, "--template", badTemplate.template])
        #expect(templateError.status == 2)
        #expect(templateError.error.contains("noSuchRule"))
    }
}

/// `apilayer demo --json`: the main job runs to the end and its summary says every check passed.
/// Shared gate: the demo checks timings (a 0.5 s timeout, a cancel within a second).
@Suite(.processGate(.shared, minutes: 5))
struct DemoCommandTests {
    struct Summary: Decodable {
        struct Check: Decodable {
            let section: String
            let passed: Bool
            let detail: String
        }

        let passed: Int
        let failed: Int
        let sections: Int
        let seconds: Double
        let figures: [String: Double]
        let checks: [Check]
    }

    @Test(arguments: ["urlsession", "nio"])
    func demoJSONSummaryReportsEveryCheckPassed(engine: String) async throws {
        let result = try await APILayerExecutable.run(["demo", "--json", "--engine", engine])
        let summary = try JSONDecoder().decode(Summary.self, from: Data(result.output.utf8))
        let failures = summary.checks.filter { !$0.passed }.map { "\($0.section): \($0.detail)" }
        #expect(result.status == 0, "\(failures) \(result.error)")
        #expect(summary.failed == 0, "\(failures)")
        #expect(summary.passed == summary.checks.count && summary.passed >= 21)
        #expect(summary.sections == 12)
        #expect(summary.checks.contains { $0.detail.hasPrefix("neither token reached the other's server") && $0.passed })
        #expect(summary.figures["refreshes"] == 1)
        #expect(Set(summary.checks.map(\.section)).count == summary.sections)
        // Token values never reach the output.
        #expect(!result.output.contains("at-") && !result.error.contains("at-"))
    }

    /// `--trace`: the span tree of the expired-token section (ten calls, each parked and
    /// replayed, and the one refresh) and the metrics of the run.
    @Test func demoTracePrintsTheSpanTreeAndTheMetrics() async throws {
        let result = try await APILayerExecutable.run(["demo", "--trace"])
        #expect(result.status == 0, "\(result.error)")
        let output = result.output
        let tree = output.components(separatedBy: "Span tree of the section").last ?? ""
        let treeLines = tree.components(separatedBy: "Metrics of the demo's API").first?.split(separator: "\n") ?? []
        #expect(treeLines.filter { $0.contains("demo wall.get (internal") && $0.contains("events: postponed, replayed") }.count == 10)
        // A call that went after the refresh began was parked before sending: it has one attempt only.
        #expect(treeLines.contains { $0.contains("GET /api/demo/method/wall.get (client") && $0.contains("http.request.resend_count=1") })
        #expect(treeLines.filter { $0.contains("demo token refresh (internal") }.count == 1)
        #expect(output.contains("apilayer.requests{api=demo,method=wall.get,status_class=2xx,outcome=success}"))
        #expect(output.contains("apilayer.retries{api=demo,method=wall.get,reason=replay}"))
        #expect(output.contains("apilayer.operations.parked{api=demo} now 0.0"))
        #expect(output.contains("http.client.active_requests{http.request.method=GET,server.address=127.0.0.1"))
        #expect(output.contains("http.client.request.duration{http.request.method=GET,server.address=127.0.0.1"))
        #expect(!output.contains("at-") && !result.error.contains("at-"))
    }
}
