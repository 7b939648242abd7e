import ArgumentParser

/// `apilayer validate` (being built: see its issue).
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "validate", abstract: "Validate a JSON response against a template.")

    func run() throws {
        throw ValidationError("'apilayer validate' is not built yet")
    }
}
