import ArgumentParser
import Foundation
import OpenAPIImport
import Validator

/// `apilayer templates import SPEC --out DIR`: the templates (with rules) of an OpenAPI 3.0 or
/// 3.1 description's success responses, a report of what the rule dialect cannot say, and,
/// with `--swift FILE`, the recipe's method enum of the same operations.
///
/// Exit codes: 0 every operation was written; 1 some were skipped (each is listed with its
/// reason); 2 the description could not be read (not a file, not JSON or YAML, not OpenAPI 3,
/// larger than `--max-bytes`) or the output could not be written.
struct TemplatesImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Write templates with rules (and the recipe's method enum) from an OpenAPI 3.0/3.1 description.",
        discussion: """
            For each operation, the template of its lowest 2xx response with a JSON body is written to \
            DIR/<operationId>.json. Values come from the description's examples, or are made up from the schema; \
            -Rules come from the schema's bounds, enums and required lists. What the rules cannot say is reported.
            """
    )

    @Argument(help: "The OpenAPI description (JSON or YAML).")
    var spec: String

    @Option(name: .long, help: "The folder the templates are written to (created if missing).")
    var out: String

    @Option(name: .long, help: "Import only this operation (its operationId); repeat for several.")
    var operation: [String] = []

    @Flag(name: .long, help: "Print the report as one JSON object.")
    var json = false

    @Option(name: .long, help: "Also write the recipe's method enum of the operations to this Swift file.")
    var swift: String?

    @Option(name: .long, help: "The largest description read, in bytes.")
    var maxBytes: Int = 32 << 20

    func run() throws {
        let started = ContinuousClock.now
        let description: OpenAPIDescription
        do {
            description = try OpenAPIDescription.load(contentsOf: URL(fileURLWithPath: spec), maxBytes: maxBytes)
        } catch {
            TemplatesCLI.printError("error: \(error)")
            throw TemplatesCLI.usage
        }
        let operations = OpenAPIImporter().operations(in: description, only: operation)
        let report = ImportReport(source: spec, title: description.title, version: description.declaredVersion, operations: operations)
        do {
            _ = try TemplateFileWriter.write(operations, to: URL(fileURLWithPath: out, isDirectory: true))
            if let swift {
                let file = URL(fileURLWithPath: swift)
                let enumName = Self.enumName(for: file)
                var command = "apilayer templates import \(URL(fileURLWithPath: spec).lastPathComponent) --swift \(file.lastPathComponent)"
                for name in operation { command += " --operation \(name)" }
                let source = RecipeSwiftWriter.source(for: operations, enumName: enumName, title: description.title, command: command)
                try Data(source.utf8).write(to: file, options: .atomic)
            }
        } catch {
            TemplatesCLI.printError("error: cannot write the output: \(error)")
            throw TemplatesCLI.usage
        }
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        if json {
            guard case var .object(fields) = report.json else { return }
            fields["seconds"] = .double((seconds * 1000).rounded() / 1000)
            print(String(decoding: JSONValue.object(fields).serialized(), as: UTF8.self))
        } else {
            print(report.text)
            print(String(format: "in %.2f s", seconds))
        }
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
    }

    /// The enum's name: the Swift file's name, as a type name.
    static func enumName(for file: URL) -> String {
        let base = file.deletingPathExtension().lastPathComponent
        let words = base.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
        var name = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if name.isEmpty || name.first!.isNumber { name = "ImportedAPI" + name }
        return name
    }
}
