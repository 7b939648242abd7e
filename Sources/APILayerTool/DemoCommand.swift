import ArgumentParser

/// `apilayer demo`: the whole stack against an embedded server.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "demo", abstract: "Run the whole stack against an embedded server.")

    func run() async throws {
        throw ValidationError("'apilayer demo' is not built yet")
    }
}
