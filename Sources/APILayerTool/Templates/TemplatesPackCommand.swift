import ArgumentParser
import Foundation
import Templater

/// `apilayer templates pack DIR --out ZIP`: a deterministic archive of a folder's templates.
struct TemplatesPackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Pack a folder's templates into a deterministic ZIP archive (after checking them)."
    )

    @Argument(help: "The folder of *.json templates (subfolders included).")
    var dir: String

    @Option(name: .long, help: "The archive to write (replaced atomically).")
    var out: String

    func run() throws {
        let folder = URL(fileURLWithPath: dir, isDirectory: true)
        try TemplatesCLI.requireFolder(folder)
        let failures = try TemplatesCheckCommand.failures(in: folder)
        guard failures.isEmpty else {
            for failure in failures { TemplatesCLI.printError("refused: \(failure)") }
            throw TemplatesCLI.refused
        }
        do {
            let names = try ArchivePacker().pack(folder: folder, to: URL(fileURLWithPath: out))
            print("packed \(names.count) templates into \(out)")
        } catch {
            TemplatesCLI.printError("error: \(error)")
            throw TemplatesCLI.refused
        }
    }
}
