import ArgumentParser
import Foundation
import Templater

/// `apilayer templates list [--dir D]`: the template names in a folder, one per line.
struct TemplatesListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the templates in a folder.")

    @Option(name: .long, help: "The template folder (default: the Templater default folder).")
    var dir: String?

    func run() throws {
        let folder = TemplatesCLI.folder(dir)
        try TemplatesCLI.requireFolder(folder)
        do {
            for name in try TemplateStore(directory: folder).templateNames() {
                print(name.rawValue)
            }
        } catch {
            TemplatesCLI.printError("error: \(error)")
            throw TemplatesCLI.refused
        }
    }
}
