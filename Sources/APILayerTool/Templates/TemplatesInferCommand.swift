import ArgumentParser
import Foundation
import NetOps
import TemplateInference
import Templater
import Validator

/// `apilayer templates infer SAMPLE… --out FILE`: one template with `-Rules` inferred from
/// sample responses of one method.
///
/// Exit codes: 0 the template was written (findings, such as mixed types, are printed); 2 bad
/// input — a sample missing, larger than `--max-bytes`, not JSON, or of another top-level type
/// than the others; the output not writable — with the file named, and nothing written.
struct TemplatesInferCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "infer",
        abstract: "Infer a template with rules from sample responses of one method.",
        discussion: """
            Each SAMPLE is a JSON file, or '-' for JSON lines on standard input (one response per line). \
            Keys absent from some samples get isOptional, null beside other values isNullable, array elements \
            merge into one element; rules are written only where the samples support them. Values of different \
            types at one place are reported, and any value passes there. No value of a secret key (tokens, \
            passwords, --secret names) is written.
            """
    )

    @Argument(help: "Sample responses: JSON files, or '-' for JSON lines on standard input.")
    var samples: [String]

    @Option(help: "The template file to write (it must end in .json; written atomically).")
    var out: String

    @Flag(help: "Print the report as one JSON object.")
    var json = false

    @Option(help: "The largest sample (a file, or a line of standard input) read, in bytes.")
    var maxBytes: Int = 64 << 20

    @OptionGroup var inference: InferenceArguments

    func validate() throws {
        guard !samples.isEmpty else { throw ValidationError("give at least one sample") }
        guard out.hasSuffix(".json") else { throw ValidationError("--out must name a .json file") }
    }

    func run() throws {
        let started = ContinuousClock.now
        let redaction = inference.redaction
        var inferrer = TemplateInferrer(options: inference.options, isSecret: { redaction.isSecret(parameter: $0) })
        var bytes = 0
        for sample in samples {
            if sample == "-" {
                bytes += try readLines { line, number in
                    try merge(line, into: &inferrer, source: "standard input, line \(number)")
                }
            } else {
                let data = try readFile(sample)
                try merge(data, into: &inferrer, source: "sample \(sample)")
                bytes += data.count
            }
        }
        guard inferrer.sampleCount > 0 else {
            TemplatesCLI.printError("error: no sample: the files and standard input held no JSON value")
            throw TemplatesCLI.usage
        }
        let inferred = inferrer.template()
        let file = URL(fileURLWithPath: out)
        do {
            try Self.write(inferred.json, to: file)
        } catch {
            TemplatesCLI.printError("error: \(error)")
            throw TemplatesCLI.usage
        }
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        if json {
            let report: JSONValue = .object([
                "out": .string(out), "samples": .int(inferred.sampleCount), "bytes": .int(bytes),
                "seconds": .double((seconds * 1000).rounded() / 1000), "findings": .array(inferred.findings.map(\.json)),
            ])
            print(String(decoding: report.serialized(), as: UTF8.self))
        } else {
            print("wrote \(out): inferred from \(inferred.sampleCount) samples (\(bytes) bytes)" + String(format: " in %.2f s", seconds))
            for finding in inferred.findings { print("  \(finding)") }
        }
    }

    /// Writes `template` to `file` atomically (a synced temporary file renamed into place).
    static func write(_ template: JSONValue, to file: URL) throws {
        let name = String(file.lastPathComponent.dropLast(".json".count))
        try TemplateStore(directory: file.deletingLastPathComponent()).write(template, for: name)
    }

    private func merge(_ data: Data, into inferrer: inout TemplateInferrer, source: String) throws {
        do {
            try inferrer.add(parsing: data)
        } catch {
            TemplatesCLI.printError("error: \(source): \(error)")
            throw TemplatesCLI.usage
        }
    }

    /// A sample file, refused before it is read when it is not a regular file or is larger than `--max-bytes`.
    private func readFile(_ path: String) throws -> Data {
        let attributes: [FileAttributeKey: Any]
        do { attributes = try FileManager.default.attributesOfItem(atPath: path) } catch {
            TemplatesCLI.printError("error: sample \(path): no such file")
            throw TemplatesCLI.usage
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            TemplatesCLI.printError("error: sample \(path): not a regular file")
            throw TemplatesCLI.usage
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= maxBytes else {
            TemplatesCLI.printError("error: sample \(path) has \(size) bytes, more than the \(maxBytes) this command reads (--max-bytes)")
            throw TemplatesCLI.usage
        }
        do { return try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            TemplatesCLI.printError("error: sample \(path): \((error as NSError).localizedDescription)")
            throw TemplatesCLI.usage
        }
    }

    /// Reads standard input line by line, 64 KiB at a time, and hands each non-blank line to
    /// `body` with its number; a line longer than `--max-bytes` is refused before it is complete.
    /// - Returns: The bytes read.
    private func readLines(_ body: (Data, Int) throws -> Void) throws -> Int {
        let input = FileHandle.standardInput
        var pending = Data()
        var number = 0
        var total = 0
        func emit(_ line: Data) throws {
            number += 1
            guard line.contains(where: { ![0x20, 0x09, 0x0D].contains($0) }) else { return }
            try body(line, number)
        }
        while true {
            let chunk = input.readData(ofLength: 64 << 10)
            if chunk.isEmpty { break }
            total += chunk.count
            var start = chunk.startIndex
            while let newline = chunk[start...].firstIndex(of: 0x0A) {
                pending.append(chunk[start..<newline])
                try emit(pending)
                pending.removeAll(keepingCapacity: true)
                start = chunk.index(after: newline)
            }
            pending.append(chunk[start...])
            guard pending.count <= maxBytes else {
                TemplatesCLI.printError(
                    "error: standard input, line \(number + 1) is longer than the \(maxBytes) bytes this command reads (--max-bytes)")
                throw TemplatesCLI.usage
            }
        }
        if !pending.isEmpty { try emit(pending) }
        return total
    }
}
