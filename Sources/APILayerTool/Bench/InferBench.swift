import APILayer
import ArgumentParser
import Foundation
import NetOps
import OpenAPIImport
import TemplateInference
import Templater
import Validator

/// `apilayer bench infer --description FILE`: templates inferred from real responses, measured
/// against the templates `apilayer templates import` writes from the same API's OpenAPI
/// description, whose schemas are the ground truth; and what recording costs a call.
///
/// Figures:
/// - `infer-mutation-detection`: the share of single mutations of held-out responses (a
///   required key removed, a value of another type, `null` where the schema forbids it, `""`
///   where it requires a character) the inferred templates catch (`value`), against the share
///   the imported templates catch (`baseline`); target `ratio >= 0.9`.
/// - `infer-false-positives`: held-out responses the inferred templates refuse; target 0.
/// - `infer-ms-per-mib`: inference time per MiB of samples (`value`), against parsing the same
///   bytes (`baseline`).
/// - `record-overhead-cpu`: CPU per call with recording at sample rate 1.0 (`value`) against
///   the same calls without (`baseline`); target `ratio <= 1.1`.
///
/// Held out: each response of a method in turn is left out, the template is inferred from the
/// others, and the left-out response is checked and mutated.
struct InferBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "infer",
        abstract: "Inferred templates against imported ones on real responses; the CPU cost of recording.",
        discussion: """
            DESCRIPTION is an OpenAPI description with example responses, e.g. GitHub's \
            (descriptions/api.github.com/api.github.com.json of github/rest-api-description): its examples are \
            the responses, its schemas the ground truth. Docs/benchmarks.md has the figures and where to get it.
            """
    )

    @Option(help: "The OpenAPI description (JSON or YAML) whose example responses are inferred from.")
    var description: String

    @Flag(help: "Print the report as JSON.")
    var json = false

    @Option(help: "The fewest distinct example responses a method needs to be measured (one is held out).")
    var minimumResponses = 3

    @Option(help: "Sequential calls per round of the recording case.")
    var calls = 200

    @Option(help: "Rounds of the recording case (with and without alternate); medians are reported.")
    var rounds = 5

    @Flag(help: "List every method measured.")
    var verbose = false

    @OptionGroup var inference: InferenceArguments

    @OptionGroup var server: BenchServer

    func run() throws {
        let loaded: OpenAPIDescription
        do {
            loaded = try OpenAPIDescription.load(contentsOf: URL(fileURLWithPath: description), maxBytes: 64 << 20)
        } catch {
            throw ValidationError("\(description): \(error)")
        }
        let evaluation = try evaluate(loaded)
        let speed = try measureInferenceSpeed(evaluation.samples)
        let recording = try measureRecording()
        var notes = [
            "responses: \(evaluation.methods) response schemas of \(loaded.title) with at least \(minimumResponses) distinct example "
                + "responses, each measured through one method that returns it (\(evaluation.heldOut) responses held out in turn; "
                + "\(evaluation.excluded) left aside because the imported template refuses them)",
            "mutations: \(evaluation.mutations) of held-out responses the inferred templates accept; "
                + Mutation.allCases.map { kind in
                    let counts = evaluation.byKind[kind] ?? (0, 0, 0)
                    return "\(kind.rawValue) \(counts.inferred)/\(counts.imported)/\(counts.total)"
                }.joined(separator: ", ") + " (inferred/imported/all)",
            String(format: "inference: %.1f MiB of samples; parsing the same bytes %.1f ms/MiB", speed.mebibytes, speed.parse),
            "recording: \(recording.label), median of \(rounds) rounds of \(calls) sequential calls, CPU (user + system) per call",
        ]
        // A refused response passed its imported template: what it lacks, the schema does not require.
        for failure in evaluation.falsePositives { notes.append("false positive: \(failure) (the imported template accepts it)") }
        if verbose { notes += evaluation.details }
        let report = BenchReport(
            suite: "infer",
            figures: [
                BenchFigure(
                    name: "infer-mutation-detection", value: evaluation.inferredShare, baseline: evaluation.importedShare, unit: "share",
                    target: ">= 0.9"),
                BenchFigure(name: "infer-false-positives", value: Double(evaluation.falsePositives.count), unit: "responses", target: "= 0"),
                BenchFigure(name: "infer-ms-per-mib", value: speed.infer, baseline: speed.parse, unit: "ms/MiB"),
                BenchFigure(name: "record-overhead-cpu", value: recording.with, baseline: recording.without, unit: "ms", target: "<= 1.1"),
            ],
            notes: notes)
        report.print(json: json)
    }

    private typealias Mutation = ExampleCorpus.Mutation.Kind

    private struct Evaluation {
        var methods = 0
        var heldOut = 0
        var excluded = 0
        var mutations = 0
        var importedCaught = 0
        var inferredCaught = 0
        var byKind: [Mutation: (inferred: Int, imported: Int, total: Int)] = [:]
        var falsePositives: [String] = []
        var details: [String] = []
        /// Every method's responses, for the speed measurement.
        var samples: [[JSONValue]] = []

        var importedShare: Double { mutations == 0 ? 0 : Double(importedCaught) / Double(mutations) }
        var inferredShare: Double { mutations == 0 ? 0 : Double(inferredCaught) / Double(mutations) }
    }

    /// Leaves each response of each method out in turn, infers from the others, and checks and
    /// mutates the one left out.
    private func evaluate(_ loaded: OpenAPIDescription) throws -> Evaluation {
        let imported = Dictionary(
            OpenAPIImporter().operations(in: loaded).compactMap { operation in operation.template.map { (operation.name, $0) } },
            uniquingKeysWith: { first, _ in first })
        let corpus = ExampleCorpus(root: loaded.root)
        let redaction = inference.redaction
        var evaluation = Evaluation()
        // Each pool of responses is measured once, through the first method that returns one
        // of them (a method returning it alone before one returning a list of it): a response
        // shared by many methods counts as one response, not one per method.
        var measured: Set<String> = []
        let ordered = corpus.methods.filter { !$0.isList } + corpus.methods.filter(\.isList)
        for method in ordered {
            guard !measured.contains(method.reference), let importedJSON = imported[method.name],
                let pool = corpus.pools[method.reference], pool.count >= minimumResponses,
                let importedTemplate = try? Template(importedJSON)
            else { continue }
            measured.insert(method.reference)
            let responses = method.isList ? pool.map { JSONValue.array([$0]) } : pool
            let reference: JSONValue = .object(["$ref": .string(method.reference)])
            let schema: JSONValue = method.isList ? .object(["type": .string("array"), "items": reference]) : reference
            evaluation.methods += 1
            evaluation.samples.append(responses)
            var caught = (imported: 0, inferred: 0, total: 0)
            for (index, heldOut) in responses.enumerated() {
                guard Validator.validate(heldOut, against: importedTemplate, failFast: true).isEmpty else {
                    evaluation.excluded += 1
                    continue
                }
                var inferrer = TemplateInferrer(options: inference.options, isSecret: { redaction.isSecret(parameter: $0) })
                for (other, response) in responses.enumerated() where other != index { try inferrer.add(response) }
                let inferred = try Template(inferrer.template().json)
                evaluation.heldOut += 1
                if let refusal = Validator.validate(heldOut, against: inferred, failFast: true).first {
                    evaluation.falsePositives.append("\(method.name) (\(responses.count - 1) responses inferred from): \(refusal)")
                    continue
                }
                for mutation in corpus.mutations(of: heldOut, schema: schema) {
                    let mutated = heldOut.applying(mutation)
                    let byImported = !Validator.validate(mutated, against: importedTemplate, failFast: true).isEmpty
                    let byInferred = !Validator.validate(mutated, against: inferred, failFast: true).isEmpty
                    var counts = evaluation.byKind[mutation.kind] ?? (0, 0, 0)
                    counts = (counts.inferred + (byInferred ? 1 : 0), counts.imported + (byImported ? 1 : 0), counts.total + 1)
                    evaluation.byKind[mutation.kind] = counts
                    caught = (caught.imported + (byImported ? 1 : 0), caught.inferred + (byInferred ? 1 : 0), caught.total + 1)
                }
            }
            evaluation.mutations += caught.total
            evaluation.importedCaught += caught.imported
            evaluation.inferredCaught += caught.inferred
            evaluation.details.append(
                "method \(method.name): \(responses.count) responses; mutations caught imported \(caught.imported), inferred \(caught.inferred) of \(caught.total)"
            )
        }
        guard evaluation.heldOut > 0 else {
            throw ValidationError("\(description): no method has \(minimumResponses) distinct example responses and an imported template")
        }
        return evaluation
    }

    /// Milliseconds per MiB to infer each method's template from all its responses, and to
    /// parse the same bytes; repeated until each took a second.
    private func measureInferenceSpeed(_ samples: [[JSONValue]]) throws -> (infer: Double, parse: Double, mebibytes: Double) {
        let documents = samples.map { $0.map { $0.serialized() } }
        let bytes = Double(documents.joined().reduce(0) { $0 + $1.count })
        let mebibytes = bytes / 1_048_576
        let redaction = Redaction.standard
        func timed(_ body: () throws -> Void) rethrows -> Double {
            var passes = 0
            let clock = ContinuousClock()
            let started = clock.now
            while clock.now - started < .seconds(1) || passes < 3 {
                try body()
                passes += 1
            }
            return (clock.now - started) / .milliseconds(1) / Double(passes) / mebibytes
        }
        let infer = try timed {
            for method in samples {
                var inferrer = TemplateInferrer(isSecret: { redaction.isSecret(parameter: $0) })
                for response in method { try inferrer.add(response) }
                _ = inferrer.template()
            }
        }
        let parse = try timed {
            for method in documents {
                for document in method { _ = try JSONValue(parsing: document) }
            }
        }
        return (infer, parse, mebibytes)
    }

    /// Median CPU milliseconds per call of a page of 30 issues (about 380 KB) through
    /// APIManager, with recording at sample rate 1.0 and without, rounds alternating.
    private func measureRecording() throws -> (with: Double, without: Double, label: String) {
        let (base, stop) = try server.start()
        defer { stop?() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-bench-infer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let templates = TemplateStore(directory: folder.appendingPathComponent("templates"))
        let page = DTO.get(base.appendingPathComponent(InferBenchAPI.issues.path)).syncStart()
        guard page.state == .successFinished, case let .array(issues) = try JSONValue(parsing: page.receivedData), let first = issues.first
        else { throw ValidationError("GET \(InferBenchAPI.issues.path) did not answer a JSON array") }
        try templates.write(.array([first]), for: InferBenchAPI.issues.templateName)
        var mapping = APIScope.Configuration().mapperConfiguration
        mapping.dateDecodingStrategy = .iso8601
        InferBenchAPI.scope.configure {
            $0.baseURL = base
            $0.templates = templates
            $0.mapperConfiguration = mapping
        }
        let recording = TemplateRecording(
            folder: folder.appendingPathComponent("recorded"), sampleRate: 1, maximumSamplesPerMethod: .max)
        func call() throws {
            let operation = APIManager.operation(InferBenchAPI.issues, as: [BenchIssue].self)
            operation.syncStart()
            guard case .success = operation.result else {
                throw ValidationError("the call failed: \(String(describing: operation.result))")
            }
        }
        for _ in 0..<10 { try call() }
        var samples: [[Double]] = [[], []]
        for _ in 0..<max(1, rounds) {
            for (slot, records) in [true, false].enumerated() {
                InferBenchAPI.scope.configure { $0.templateRecording = records ? recording : nil }
                let cpu = ProcessMetrics.cpuSeconds()
                for _ in 0..<max(1, calls) { try call() }
                samples[slot].append((ProcessMetrics.cpuSeconds() - cpu) * 1000 / Double(calls))
                // Each recorded round really merged every answer.
                let merged = InferBenchAPI.scope.templateRecorder?.statistics(for: InferBenchAPI.issues.templateName)?.merged ?? 0
                guard !records || merged == max(1, calls) else {
                    throw ValidationError("a recorded round merged \(merged) of \(calls) answers")
                }
            }
        }
        let medians = samples.map { $0.sorted()[$0.count / 2] }
        return (medians[0], medians[1], "\(server.label), \(page.receivedData.count) bytes per answer (30 issues)")
    }
}

/// The method of the recording case of `apilayer bench infer`, in its own API scope.
enum InferBenchAPI: String, APIMethod {
    case issues = "bench/issues"

    /// The bench's own API; its base URL, templates and recording are set when the bench runs.
    static let scope = APIScope(name: "bench-infer")
    static var api: APIScope { scope }

    var httpMethod: HTTPMethod { .get }
    var encoding: RequestEncoding { .query }
    var defaultParameters: Parameters { [:] }
    var tokenPlacement: TokenPlacement? { nil }
}
