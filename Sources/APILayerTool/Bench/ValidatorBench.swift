import ArgumentParser

/// `apilayer bench validator` (being built: see its issue).
struct ValidatorBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "validator")

    func run() throws {
        throw ValidationError("'apilayer bench validator' is not built yet")
    }
}
