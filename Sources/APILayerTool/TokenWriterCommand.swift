import APILayer
import ArgumentParser
import Foundation

/// `apilayer token-writer`: saves tokens to a file store in a loop until killed. The tests kill
/// it at random moments to prove a save is never torn.
struct TokenWriterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token-writer",
        abstract: "Save tokens to a FileTokenStore in a loop until killed (crash-safety tests).",
        shouldDisplay: false
    )

    @Option(help: "The token file.")
    var file: String

    func run() throws {
        let store = FileTokenStore(fileURL: URL(fileURLWithPath: file))
        var counter = 0
        while true {
            counter += 1
            let padding = String(repeating: "x", count: counter % 4_000)
            try store.save(Token(accessToken: "token-\(counter)-\(padding)", refreshToken: "refresh-\(counter)"))
        }
    }
}
