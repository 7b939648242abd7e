import ArgumentParser
import Foundation
import Templater

/// `apilayer templates unpack ARCHIVE --to DIR`: safely unpack a template archive (once per archive).
struct TemplatesUnpackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpack",
        abstract: "Unpack a template archive into a folder, refusing hostile archives."
    )

    @Argument(help: "The ZIP archive.")
    var archive: String

    @Option(name: .long, help: "The template folder to unpack into (created if absent).")
    var to: String

    func run() throws {
        let archiveURL = URL(fileURLWithPath: archive)
        try TemplatesCLI.requireFile(archiveURL)
        let folder = URL(fileURLWithPath: to, isDirectory: true)
        let report: UnarchiveReport
        do {
            report = try TemplateStore(directory: folder).unarchiveDefaultTemplates(from: archiveURL)
        } catch {
            TemplatesCLI.printError("refused: \(error)")
            throw TemplatesCLI.refused
        }
        switch report.outcome {
        case .alreadyUpToDate:
            print("\(folder.path) already holds this archive (sha256 \(report.archiveSHA256)): nothing unpacked")
        case .unpacked:
            print("unpacked \(report.installed.count) templates into \(folder.path)")
            for kept in report.kept { print("kept: \(kept)") }
            for skipped in report.skipped { print("skipped: \(skipped)") }
        }
        for rejected in report.rejected { TemplatesCLI.printError("rejected: \(rejected)") }
        if !report.isClean { throw TemplatesCLI.refused }
    }
}
