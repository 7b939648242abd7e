import APILayer
import ArgumentParser
import Foundation
import Mapper
import NetOps
import Templater
import Validator

/// `apilayer bench pipeline`: an `APIManager` call (validation against the method's template,
/// then mapping into a Decodable model) against a raw operation whose body `JSONDecoder` decodes
/// into the same model: same server, same bytes, same engine, interleaved rounds, medians of the
/// CPU time per call.
///
/// Figures, each `value` ours and `baseline` raw, `ratio` ours / raw: `pipeline-large-cpu` (a
/// page of 30 REST-style issues, ~380 KB; target ≤ 1.5), `pipeline-small-cpu` (one ~1 KB issue;
/// ≤ 1.2) and `pipeline-large-unvalidated-cpu` (the page through a method whose validation is
/// custom and empty; ≤ 1.1).
struct PipelineBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract: "CPU per call of APIManager (validate + map) vs a raw operation + JSONDecoder."
    )

    @OptionGroup var server: BenchServer

    @Flag(help: "Print the report as JSON.")
    var json = false

    @Option(help: "Sequential calls per round.")
    var calls = 200

    @Option(help: "Rounds per case (ours and raw alternate round by round); medians are reported.")
    var rounds = 5

    @Option(help: "Measure only this case (large, small or unvalidated) and print its CPU per call, for profiling.")
    var only: String?

    func run() throws {
        let (base, stop) = try server.start()
        defer { stop?() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-bench-pipeline-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let templates = TemplateStore(directory: folder)

        // The templates are written from the API's own example answers: the page's first
        // issue stands for every element.
        let page = try Self.fetch(base.appendingPathComponent(PipelineBenchAPI.issues.path))
        guard case let .array(issues) = try JSONValue(parsing: page), let first = issues.first else {
            throw ArgumentParser.ValidationError("the issue page is not a JSON array")
        }
        try templates.write(.array([first]), for: PipelineBenchAPI.issues.templateName)
        let single = try Self.fetch(base.appendingPathComponent(PipelineBenchAPI.issue.path))
        try templates.write(try JSONValue(parsing: single), for: PipelineBenchAPI.issue.templateName)

        var mapping = Mapper.Configuration()
        mapping.dateDecodingStrategy = .iso8601
        PipelineBenchAPI.scope.configure { configuration in
            configuration.baseURL = base
            configuration.templates = templates
            configuration.mapperConfiguration = mapping
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601

        if let only {
            let measured: Measurement
            switch only {
            case "large": measured = try measure(.issues, as: [BenchIssue].self, decoder: decoder, base: base)
            case "small": measured = try measure(.issue, as: BenchIssue.self, decoder: decoder, base: base)
            case "unvalidated": measured = try measure(.issuesUnvalidated, as: [BenchIssue].self, decoder: decoder, base: base)
            default: throw ArgumentParser.ValidationError("no case named \(only) (large, small or unvalidated)")
            }
            print(
                String(format: "%@: ours %.4f ms CPU per call, raw %.4f, ratio %.3f", only, measured.ours, measured.raw, measured.ours / measured.raw)
            )
            return
        }
        let large = try measure(.issues, as: [BenchIssue].self, decoder: decoder, base: base)
        let small = try measure(.issue, as: BenchIssue.self, decoder: decoder, base: base)
        let unvalidated = try measure(.issuesUnvalidated, as: [BenchIssue].self, decoder: decoder, base: base)

        let report = BenchReport(
            suite: "pipeline",
            figures: [
                BenchFigure(name: "pipeline-large-cpu", value: large.ours, baseline: large.raw, unit: "ms", target: "<= 1.5"),
                BenchFigure(name: "pipeline-small-cpu", value: small.ours, baseline: small.raw, unit: "ms", target: "<= 1.2"),
                BenchFigure(name: "pipeline-large-unvalidated-cpu", value: unvalidated.ours, baseline: unvalidated.raw, unit: "ms", target: "<= 1.1"),
            ],
            notes: [
                "server: \(server.label); page \(page.count) bytes (30 issues), single issue \(single.count) bytes",
                "CPU ms per call (user + system, whole process), median of \(rounds) rounds of \(calls) sequential calls",
                String(
                    format: "wall ms per call: large %.2f vs raw %.2f; small %.3f vs raw %.3f; unvalidated %.2f vs raw %.2f",
                    large.oursWall, large.rawWall, small.oursWall, small.rawWall, unvalidated.oursWall, unvalidated.rawWall),
            ]
        )
        report.print(json: json)
    }

    private struct Measurement {
        var ours: Double
        var raw: Double
        var oursWall: Double
        var rawWall: Double
    }

    /// Median CPU (and wall) milliseconds per call of `method` through APIManager and raw.
    private func measure<Model: Decodable & Sendable>(
        _ method: PipelineBenchAPI, as type: Model.Type,
        decoder: JSONDecoder, base: URL
    ) throws -> Measurement {
        let url = base.appendingPathComponent(method.path)
        let ours = {
            let operation = APIManager.operation(method, as: type)
            operation.syncStart()
            guard case .success = operation.result else {
                throw ArgumentParser.ValidationError("APIManager call failed: \(String(describing: operation.result))")
            }
        }
        let raw = {
            let operation = DTO.get(url).syncStart()
            guard operation.state == .successFinished else { throw ArgumentParser.ValidationError("raw call failed") }
            _ = try decoder.decode(type, from: operation.receivedData)
        }
        // Warm-up: connections, caches, the compiled template.
        for _ in 0..<10 {
            try ours()
            try raw()
        }
        var samples: [[Double]] = [[], [], [], []]
        for _ in 0..<max(1, rounds) {
            for (slot, body) in [ours, raw].enumerated() {
                let cpu = ProcessMetrics.cpuSeconds()
                let wall = DispatchTime.now().uptimeNanoseconds
                for _ in 0..<max(1, calls) { try body() }
                samples[slot].append((ProcessMetrics.cpuSeconds() - cpu) * 1000 / Double(calls))
                samples[slot + 2].append(Double(DispatchTime.now().uptimeNanoseconds - wall) / 1e6 / Double(calls))
            }
        }
        let medians = samples.map { $0.sorted()[$0.count / 2] }
        return Measurement(ours: medians[0], raw: medians[1], oursWall: medians[2], rawWall: medians[3])
    }

    private static func fetch(_ url: URL) throws -> Data {
        let operation = DTO.get(url).syncStart()
        guard operation.state == .successFinished else {
            throw ArgumentParser.ValidationError("GET \(url) failed: \(operation.error?.description ?? "no answer")")
        }
        return operation.receivedData
    }
}

/// The methods of `apilayer bench pipeline`, in their own API scope.
enum PipelineBenchAPI: String, APIMethod {
    case issues = "bench/issues"
    case issue = "bench/issue"
    /// The page again, validated by a custom check that checks nothing.
    case issuesUnvalidated = "bench/issues-unvalidated"

    /// The bench's own API; its base URL and templates are set when the bench starts.
    static let scope = APIScope(name: "bench-pipeline")
    static var api: APIScope { scope }

    var path: String { self == .issuesUnvalidated ? Self.issues.rawValue : rawValue }
    var httpMethod: HTTPMethod { .get }
    var encoding: RequestEncoding { .query }
    var defaultParameters: Parameters { [:] }
    var tokenPlacement: TokenPlacement? { nil }
    var validation: ValidationPolicy { self == .issuesUnvalidated ? .custom { _ in [] } : .automatic(.all) }
}

/// The eight fields of an issue a service maps (nested user, labels, a date).
struct BenchIssue: Decodable, Sendable {
    struct User: Decodable, Sendable {
        var login: String
        var id: Int
    }

    struct Label: Decodable, Sendable {
        var name: String
        var color: String
    }

    var id: Int
    var number: Int
    var title: String
    var state: String
    var user: User
    var labels: [Label]
    var comments: Int
    var createdAt: Date
}
