import ArgumentParser
import Foundation
import Templater
import Validator

/// `apilayer templates show NAME [--dir D]`: one template, pretty-printed.
struct TemplatesShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Print one template.")

    @Argument(help: "The API method name, e.g. users.get or issues/list-for-repo.")
    var name: String

    @Option(name: .long, help: "The template folder (default: the Templater default folder).")
    var dir: String?

    func run() throws {
        let folder = TemplatesCLI.folder(dir)
        try TemplatesCLI.requireFolder(folder)
        do {
            _ = try TemplateName(name)
        } catch {
            TemplatesCLI.printError("error: \(error)")
            throw TemplatesCLI.usage
        }
        do {
            guard let template = try TemplateStore(directory: folder).template(for: name) else {
                TemplatesCLI.printError("error: no template '\(name)' in \(folder.path)")
                throw TemplatesCLI.refused
            }
            print(String(decoding: template.serialized(pretty: true), as: UTF8.self))
        } catch let error as TemplaterError {
            TemplatesCLI.printError("error: \(error)")
            throw TemplatesCLI.refused
        }
    }
}
