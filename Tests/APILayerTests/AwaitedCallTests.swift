import APILayer
import Foundation
import JSONCore
import NetOps
import TestSupport
import Testing
import Validator

/// An awaited call's parse, validate and map run on the task that awaits it, where its transfer
/// ended hands it over, not on a queue of their own or an event loop (`EndRelay`).
@Suite("Awaited calls", .timeLimit(.minutes(1)))
struct AwaitedCallTests {
    /// Set by the caller: visible in the pipeline only when the caller's task runs it.
    @TaskLocal static var caller: String?

    /// `/json` of whatever API the task binds.
    enum Plain: String, APIMethod {
        case json

        var path: String { "json" }
        var httpMethod: HTTPMethod { .get }
        var encoding: RequestEncoding { .query }
        var defaultParameters: Parameters { [:] }
        var validation: ValidationPolicy { .custom { _ in [] } }
    }

    struct Anything: Decodable, Sendable {}

    @Test(arguments: TestEngine.allCases) func thePipelineRunsOnTheAwaitingTask(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let scope = APIScope(name: "awaited-\(engine)", configuration: APIScope.Configuration(baseURL: server.baseURL, session: engine.makeSession()))
        let seen = Locked<[String?]>([])
        let parser: APIManager.ParseStep = { json in
            seen.withLock { $0.append(AwaitedCallTests.caller) }
            return json
        }
        _ = try await Self.$caller.withValue("caller") {
            try await APIManager.withDefaultAPI(scope) { try await APIManager.call(Plain.json, as: Anything.self, parser: parser) }
        }
        #expect(seen.withLock { $0 } == ["caller"])
        // With a completion closure, the call's end goes to a queue and the pipeline with it.
        let operation = APIManager.withDefaultAPI(scope) { APIManager.operation(Plain.json, as: Anything.self, parser: parser) }
        operation.onCompletion { (_: Result<Anything, APIError>) in }
        _ = try await Self.$caller.withValue("caller") { try await operation.run() }
        #expect(seen.withLock { $0 } == ["caller", nil])
    }
}
