import ArgumentParser

/// `apilayer bench netops` (being built).
struct NetOpsBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "netops")

    func run() async throws {
        throw ValidationError("'apilayer bench netops' is not built yet")
    }
}
