import APILayer
import ArgumentParser
import Foundation
import NetOps
import NetOpsNIO

/// `apilayer engine-check`: runs plain operations, a download and an API scope's adopted call on
/// the NIO engine alone — and, given a DemoServer realm, a call of a scope with a
/// client-credentials grant, whose token request runs on the scope's session too — then prints
/// how many URLSessions the process made. A service whose operations all have a NIO session
/// must make none (`NetworkSession.shared` is made only for an operation without a session);
/// the tests run it in a process of its own.
struct EngineCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engine-check",
        abstract: "Run operations on the NIO engine only and print how many URLSessions were made.",
        shouldDisplay: false
    )

    @Option(help: "A server answering GET /json and /bytes/{n}.")
    var url: String

    @Option(help: "A DemoServer realm (…/realm/<name>): a scope signs in to it and calls its protected route.")
    var realm: String?

    func run() async throws {
        guard let base = URL(string: url) else { throw ValidationError("--url is not a URL") }
        let session = NetworkSession.nio()
        defer { Task { try? await session.shutdownNIOEngine() } }
        var succeeded = 0
        let data = DataTaskOperation.get(base.appendingPathComponent("json"))
        data.privateSession = session
        if (try? await data.run()) != nil { succeeded += 1 }

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("engine-check-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let download = DownloadOperation.get(base.appendingPathComponent("bytes/100000"), to: file)
        download.privateSession = session
        if (try? await download.run()) != nil { succeeded += 1 }

        let scope = APIScope(name: "engine-check", configuration: APIScope.Configuration(baseURL: base, session: session))
        let adopted = DataTaskOperation.get(base.appendingPathComponent("json"))
        scope.adopt(adopted)
        if (try? await adopted.run()) != nil { succeeded += 1 }

        if let realm, let realmURL = URL(string: realm) {
            let signedIn = APIScope(
                name: "engine-check-auth", configuration: APIScope.Configuration(baseURL: realmURL, session: session))
            signedIn.configure { $0.proxy = .direct }
            signedIn.configureAuthentication(
                authenticator: OAuthClientCredentialsAuthenticator(
                    tokenURL: realmURL.appendingPathComponent("oauth/token"), clientID: "demo-client", clientSecret: "demo-secret"))
            let protected = DataTaskOperation.get(realmURL.appendingPathComponent("protected"))
            signedIn.adopt(protected)
            if (try? await protected.run()) != nil { succeeded += 1 }
        }

        print(#"{"succeeded":\#(succeeded),"urlSessionsMade":\#(NetworkSession.urlSessionsMade)}"#)
    }
}
