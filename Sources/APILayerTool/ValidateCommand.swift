import ArgumentParser
import Foundation
import Validator

/// `apilayer validate RESPONSE.json --template TEMPLATE.json`: checks a response against a template.
///
/// Exit status: 0 when the response is valid; 1 when it is not (one line per error on standard
/// output, or a JSON array with `--json`); 2 when the input is bad (a file is missing or
/// unreadable, a file is not JSON, the template has errors), with the reason on standard error.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Validate a JSON response against a template.",
        discussion: """
            Prints one line per error: '/path: rule: expected …, got …'. Exit status: 0 valid, \
            1 invalid, 2 bad input (unreadable file, not JSON, template error).
            """
    )

    /// A `--mask` value: a comma-separated list of check names.
    struct MaskList: ExpressibleByArgument {
        var mask: ValidationMask

        init?(argument: String) {
            var mask: ValidationMask = []
            for name in argument.split(separator: ",", omittingEmptySubsequences: false) {
                guard let bit = ValidationMask.named(name.trimmingCharacters(in: .whitespaces)) else { return nil }
                mask.insert(bit)
            }
            self.mask = mask
        }

        init(mask: ValidationMask) {
            self.mask = mask
        }

        var defaultValueDescription: String { "all" }
    }

    @Argument(help: "The response JSON file ('-' reads standard input).")
    var response: String

    @Option(help: "The template JSON file.")
    var template: String

    @Option(help: "Comma-separated checks: keys, subkeys, types, rules, all.")
    var mask = MaskList(mask: .all)

    @Flag(help: "Stop at the first error.")
    var failFast = false

    @Flag(help: "Print the errors as a JSON array of {\"path\", \"rule\", \"expected\", \"actual\"}.")
    var json = false

    func run() throws {
        let templateValue = try Self.load(template, role: "template")
        let compiled: Template
        do {
            compiled = try Template(templateValue)
        } catch {
            for problem in error.errors {
                Self.printError("template error in '\(template)': \(problem)")
            }
            throw ExitCode(2)
        }
        let responseValue = try Self.load(response, role: "response")
        let errors = Validator.validate(responseValue, against: compiled, mask: mask.mask, failFast: failFast)
        if json {
            print(String(decoding: JSONValue.array(errors.map(\.json)).serialized(), as: UTF8.self))
        } else {
            for error in errors { print(error.description) }
        }
        if !errors.isEmpty { throw ExitCode(1) }
    }

    /// Reads and parses one JSON file, exiting with status 2 and a reason on failure.
    private static func load(_ path: String, role: String) throws -> JSONValue {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            printError("cannot read \(role) file '\(path)': it is a directory")
            throw ExitCode(2)
        }
        let data: Data
        do {
            if path == "-" {
                data = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        } catch {
            printError("cannot read \(role) file '\(path)': \(error.localizedDescription)")
            throw ExitCode(2)
        }
        do {
            return try JSONValue(parsing: data)
        } catch {
            printError("\(role) file '\(path)' is not JSON: \(error)")
            throw ExitCode(2)
        }
    }

    private static func printError(_ message: String) {
        FileHandle.standardError.write(Data("apilayer validate: \(message)\n".utf8))
    }
}
