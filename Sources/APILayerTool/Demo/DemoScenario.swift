import APILayer
import Crypto
import DemoServer
import Foundation
import NetOps

/// The demo's scenario: one method per section, each printing what happens and checking it.
struct DemoScenario {
    let server: DemoServer
    /// A second DemoServer on another origin, serving TrackerService.
    let trackerServer: DemoServer
    let realm: String
    let coordinator: AuthenticationCoordinator
    let report: DemoReport
    /// The session of the demo's engine; nil: the default (URLSession).
    let session: NetworkSession?
    /// With `--trace`: the tracer and metrics of the demo's API.
    var tracing: DemoTrace?

    /// SampleService's state in the demo's realm.
    var service: SampleService { server.sampleService(realm: realm) }
    /// The demo realm's token authority.
    var tokens: TokenAuthority { server.tokenAuthority(realm: realm) }

    func runAll() async {
        await usersValidatedAndMapped()
        await pagination()
        await brokenTemplate()
        if let tracing {
            await tracing.traced { await expiredToken() }
        } else {
            await expiredToken()
        }
        await profileScreen()
        await photoUploadAndDownload()
        await suspendAndResume()
        await ownerCancellation()
        await timeouts()
        await twoAPIsSideBySide()
        await stubsOffline()
        await logout()
    }

    /// `operation`, run on the demo's engine.
    func onEngine<Operation: BaseOperation>(_ operation: Operation) -> Operation {
        if let session { operation.privateSession = session }
        return operation
    }

    /// The absolute URL of a DemoServer route.
    func url(_ path: String) -> URL {
        URL(string: path, relativeTo: server.baseURL)!.absoluteURL
    }

    /// Lowercase hex SHA-256.
    func hex(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// Milliseconds since `start`, rounded.
    func milliseconds(since start: Date) -> Double {
        (Date().timeIntervalSince(start) * 1_000).rounded()
    }

    /// A failure line for a check that could not run.
    func failed(_ what: String, _ error: any Error) {
        report.check(false, "\(what): \(error)")
    }
}
