import ArgumentParser

/// `apilayer templates` (being built: see its issue).
struct TemplatesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "templates", abstract: "Manage template folders and archives.")

    func run() throws {
        throw ValidationError("'apilayer templates' is not built yet")
    }
}
