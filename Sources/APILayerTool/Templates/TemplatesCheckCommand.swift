import ArgumentParser
import Foundation
import Templater

/// `apilayer templates check DIR`: every template parses and its rules are valid.
struct TemplatesCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check that every template in a folder parses and has valid rules."
    )

    @Argument(help: "The folder of *.json templates (subfolders included).")
    var dir: String

    func run() throws {
        let folder = URL(fileURLWithPath: dir, isDirectory: true)
        try TemplatesCLI.requireFolder(folder)
        let results = try Self.results(in: folder)
        for (file, error) in results {
            if let error { TemplatesCLI.printError("FAIL \(file): \(error)") } else { print("ok   \(file)") }
        }
        if results.contains(where: { $0.1 != nil }) { throw TemplatesCLI.refused }
    }

    /// Every `*.json` file of `folder` with its problem, or `nil` when it is a valid template.
    static func results(in folder: URL) throws -> [(String, TemplaterError?)] {
        do {
            return try TemplateDecoding.checkFolder(folder).map { file, result in
                switch result {
                case .success: return (file, nil)
                case let .failure(error): return (file, error)
                }
            }
        } catch {
            TemplatesCLI.printError("error: \(error)")
            throw TemplatesCLI.usage
        }
    }

    /// The problems of `folder`'s templates, one line each.
    static func failures(in folder: URL) throws -> [String] {
        try results(in: folder).compactMap { file, error in error.map { "\(file): \($0)" } }
    }
}
