import ArgumentParser
import Foundation
import NetOps
import NetOpsNIO
import TemplateInference
import Templater
import Validator

/// `apilayer templates record URL… --out DIR`: GETs each URL and infers one method's template
/// from the answers, as a service's recording does (`TemplateRecording`), then writes it to
/// `DIR/NAME.json`.
///
/// Exit codes: 0 every answer was recorded; 1 some were not (a status other than 2xx, a body
/// that is not JSON, a transport failure: each is listed) but the template was written from the
/// others; 2 nothing was recorded, or the template could not be written (the file is named).
struct TemplatesRecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "GET URLs and infer one method's template from their answers.",
        discussion: """
            Every URL is a sample of the same method, named by --name (default: the first URL's last path \
            segment). Only 2xx answers with a JSON body are recorded; URLs are printed without their secret \
            query parameters.
            """
    )

    @Argument(help: "The URLs to GET (plain GETs).")
    var urls: [String]

    @Option(help: "The folder the template is written to (created if missing).")
    var out: String

    @Option(help: "The method's template name (default: the first URL's last path segment).")
    var name: String?

    @Option(name: .customLong("header"), help: "A request header 'Name: value' (repeatable); secret ones are never printed.")
    var headers: [String] = []

    @Option(help: "GET each URL this many times.")
    var `repeat` = 1

    @Flag(help: "Print the report as one JSON object.")
    var json = false

    @Option(help: "The engine under the requests: urlsession (default) or nio (SwiftNIO, AsyncHTTPClient).")
    var engine: DemoCommand.Engine = .urlsession

    @OptionGroup var inference: InferenceArguments

    func validate() throws {
        guard !urls.isEmpty else { throw ValidationError("give at least one URL") }
        guard `repeat` >= 1 else { throw ValidationError("--repeat must be at least 1") }
        for header in headers where !header.contains(":") {
            throw ValidationError("--header must be 'Name: value'")
        }
    }

    func run() async throws {
        guard engine == .nio else { return try await record(using: .shared) }
        let session = NetworkSession.nio(configuration: NIOEngineConfiguration())
        do {
            try await record(using: session)
        } catch {
            try? await session.shutdown()
            throw error
        }
        try? await session.shutdown()
    }

    private func record(using session: NetworkSession) async throws {
        let targets = try urls.map { text -> URL in
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                TemplatesCLI.printError("error: not an http(s) URL: \(text)")
                throw TemplatesCLI.usage
            }
            return url
        }
        let method = name ?? targets[0].lastPathComponent
        do { _ = try TemplateName(method) } catch {
            TemplatesCLI.printError("error: \(error) (give --name)")
            throw TemplatesCLI.usage
        }
        let redaction = inference.redaction
        let recorder = TemplateRecorder(
            recording: TemplateRecording(
                folder: URL(fileURLWithPath: out, isDirectory: true), sampleRate: 1, maximumSamplesPerMethod: .max,
                inference: inference.options),
            isSecret: { redaction.isSecret(parameter: $0) })
        var requestHeaders: [String: String] = [:]
        for header in headers {
            let parts = header.split(separator: ":", maxSplits: 1)
            requestHeaders[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        var skipped: [JSONValue] = []
        var recorded = 0
        for url in targets {
            for _ in 0..<`repeat` {
                let reason = await fetch(url, headers: requestHeaders, session: session, into: recorder, as: method, redaction: redaction)
                if let reason {
                    let shown = redaction.url(url)
                    skipped.append(.object(["url": .string(shown), "reason": .string(reason)]))
                    if !json { TemplatesCLI.printError("skipped \(shown): \(reason)") }
                } else {
                    recorded += 1
                }
            }
        }
        guard recorded > 0 else {
            TemplatesCLI.printError("error: no answer was recorded: nothing written")
            throw TemplatesCLI.usage
        }
        do {
            try recorder.flush()
        } catch {
            TemplatesCLI.printError("error: \(error)")
            throw TemplatesCLI.usage
        }
        let file = URL(fileURLWithPath: out, isDirectory: true).appendingPathComponent(method + ".json").path
        let findings = recorder.template(for: method)?.findings ?? []
        if json {
            let report: JSONValue = .object([
                "out": .string(file), "recorded": .int(recorded), "skipped": .array(skipped), "findings": .array(findings.map(\.json)),
            ])
            print(String(decoding: report.serialized(), as: UTF8.self))
        } else {
            print("wrote \(file): inferred from \(recorded) answers")
            for finding in findings { print("  \(finding)") }
        }
        if !skipped.isEmpty { throw TemplatesCLI.refused }
    }

    /// GETs `url` and records its answer; the reason it was not recorded, or nil.
    private func fetch(
        _ url: URL, headers: [String: String], session: NetworkSession, into recorder: TemplateRecorder, as method: String,
        redaction: Redaction
    ) async -> String? {
        let operation = DTO.get(url, headers: headers)
        operation.redaction = redaction
        operation.privateSession = session
        _ = try? await operation.run()
        guard operation.state == .successFinished else {
            if let status = operation.statusCode { return "HTTP \(status): not recorded" }
            return operation.error.map { redaction.text($0.description) } ?? "no answer"
        }
        let value: JSONValue
        do { value = try JSONValue(parsing: operation.receivedData) } catch {
            return "the body is not JSON: \(error)"
        }
        switch recorder.record(value, for: method) {
        case .merged: return nil
        case let .refused(error): return error.description
        case .notSampled, .capped, .busy: return "not sampled"
        }
    }
}
