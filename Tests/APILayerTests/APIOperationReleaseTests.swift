import APILayer
import Foundation
import NetOps
import TestSupport
import Testing
import Validator

/// DemoServer routes that fail a call at different stages.
enum FailingAPI: String, APIMethod {
    /// 500: the `server` stage.
    case serverError
    /// 200 with a body that is not JSON: the `parsing` stage, a failure of the pipeline.
    case garbage
    /// An answer after 30 s: cancelled long before, the `transport` stage.
    case slow

    var path: String {
        switch self {
        case .serverError: "status/500"
        case .garbage: "garbage"
        case .slow: "delay"
        }
    }
    var httpMethod: HTTPMethod { .get }
    var encoding: RequestEncoding { .query }
    var defaultParameters: Parameters { self == .slow ? ["seconds": 30] : [:] }
    var validation: ValidationPolicy { .custom { _ in [] } }
}

/// Any JSON object.
private struct Anything: Decodable, Sendable {}

/// A reference that does not keep its object alive.
private final class WeakReference: @unchecked Sendable {
    weak var operation: BaseOperation?
}

/// A failed call's `APIError` carries its operation, and the operation keeps its result: neither
/// may keep the other alive once the caller let go, or every failed call of a service stays in
/// memory (a million calls with 3 % failing kept some 30 000 operations and their bodies).
@Suite(.timeLimit(.minutes(2)))
struct APIOperationReleaseTests {
    @Test(arguments: TestEngine.allCases, [FailingAPI.serverError, .garbage, .slow])
    func aFailedCallIsReleasedOnceItsCallerLetsGo(_ engine: TestEngine, _ method: FailingAPI) async throws {
        let server = try await TestServer.get()
        let scope = APIScope(name: "release", configuration: .init(baseURL: server.baseURL, session: engine.session))
        let reference = WeakReference()
        var error: APIError?
        do {
            let operation = APIManager.withDefaultAPI(scope) { APIManager.operation(method, as: Anything.self) }
            reference.operation = operation
            if method == .slow {
                operation.start()
                operation.cancel()
            }
            do {
                _ = try await operation.run()
                Issue.record("\(method) succeeded")
            } catch let failure {
                error = failure
            }
            #expect(error?.operation === operation, "the error handed out names its operation")
            #expect(operation.result.map { if case let .failure(kept) = $0 { kept.operation === operation } else { false } } == true)
        }
        // The caller holds the error, so the operation stays.
        #expect(reference.operation != nil)
        #expect(error?.stageName == (method == .serverError ? "server" : method == .garbage ? "parsing" : "transport"))
        error = nil
        #expect(await eventually(within: 10) { reference.operation == nil }, "the failed operation stayed in memory")
    }
}
