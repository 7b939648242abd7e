import ArgumentParser
import Foundation
import Templater

/// `apilayer templates …`: list, show, check, pack and unpack template folders and archives,
/// import templates from an OpenAPI description, infer them from responses (`infer`, `record`)
/// and compare two template sets (`diff`).
///
/// Exit codes: 0 success; 1 an archive or a template was refused (the reason is printed per
/// entry); 2 a usage error found by the command (a missing folder or file, an invalid name).
/// Syntax errors that argument-parser itself catches (an unknown option, a missing argument)
/// exit with argument-parser's own code (64).
struct TemplatesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "templates",
        abstract: "Manage template folders and archives.",
        subcommands: [
            TemplatesListCommand.self, TemplatesShowCommand.self, TemplatesUnpackCommand.self,
            TemplatesPackCommand.self, TemplatesCheckCommand.self, TemplatesImportCommand.self, TemplatesInferCommand.self,
            TemplatesRecordCommand.self, TemplatesDiffCommand.self,
        ]
    )
}

/// Helpers the `templates` subcommands share.
enum TemplatesCLI {
    /// Exit code for a refused archive or template.
    static let refused = ExitCode(1)
    /// Exit code for a usage error the command detects itself.
    static let usage = ExitCode(2)

    /// Prints `message` to standard error.
    static func printError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// The folder `--dir` names, or the default template folder.
    static func folder(_ path: String?) -> URL {
        path.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? Templater.defaultTemplateDirectory()
    }

    /// Fails with exit code 2 unless `url` is an existing folder.
    static func requireFolder(_ url: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            printError("error: no folder at \(url.path)")
            throw usage
        }
    }

    /// Fails with exit code 2 unless `url` is an existing file.
    static func requireFile(_ url: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            printError("error: no file at \(url.path)")
            throw usage
        }
    }
}
