import ArgumentParser
import Foundation
import TemplateInference
import Validator

/// `apilayer templates diff OLD NEW`: what changed between two templates or two template
/// folders, per method and JSON Pointer, each change breaking or compatible.
///
/// Exit codes: 0 nothing breaking; 1 at least one breaking change (so a CI job can gate on it);
/// 2 bad input — a path missing, a folder compared with a file, a template that cannot be read.
struct TemplatesDiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare two templates or two template folders; exit 1 when a change is breaking.",
        discussion: """
            Folders are matched by template name (subfolders included). Each change is listed with its method \
            and JSON Pointer (array elements as *): key added or removed, type changed, nullable or optional \
            changed, a rule tightened or loosened; breaking when a response valid under OLD may fail under NEW, \
            or a client relying on OLD may break.
            """
    )

    @Argument(help: "The old template file or folder.")
    var old: String

    @Argument(help: "The new template file or folder.")
    var new: String

    @Flag(help: "Print the changes as one JSON object.")
    var json = false

    func run() throws {
        let changes: [TemplateChange]
        do {
            changes = try TemplateDiff.changes(from: URL(fileURLWithPath: old), to: URL(fileURLWithPath: new))
        } catch {
            TemplatesCLI.printError("error: \(error)")
            throw TemplatesCLI.usage
        }
        let breaking = changes.filter(\.isBreaking).count
        if json {
            let report: JSONValue = .object([
                "old": .string(old), "new": .string(new), "changes": .array(changes.map(\.json)),
                "breaking": .int(breaking), "compatible": .int(changes.count - breaking),
            ])
            print(String(decoding: report.serialized(), as: UTF8.self))
        } else {
            for change in changes { print(change.description) }
            print("\(breaking) breaking, \(changes.count - breaking) compatible")
        }
        if breaking > 0 { throw TemplatesCLI.refused }
    }
}
