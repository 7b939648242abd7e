import ArgumentParser

/// `apilayer bench templater` (being built: see its issue).
struct TemplaterBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "templater")

    func run() throws {
        throw ValidationError("'apilayer bench templater' is not built yet")
    }
}
