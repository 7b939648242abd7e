import APILayer
import Foundation
import NetOps
import TestSupport
import Testing
import Validator

/// An API's callback queue, given once in its scope, is where its calls' closures run.
@Suite("API scopes: callback queue", .timeLimit(.minutes(1)))
struct ScopeCallbackQueueTests {
    enum Methods: String, APIMethod {
        case json
        var httpMethod: HTTPMethod { .get }
        var encoding: RequestEncoding { .query }
        var defaultParameters: Parameters { [:] }
        var validation: ValidationPolicy { .custom { _ in [] } }
    }

    struct Answer: Decodable, Sendable {
        let id: Int
    }

    @Test(arguments: TestEngine.allCases)
    func aScopesCallsCompleteOnItsQueue(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let queue = DispatchQueue(label: "ScopeCallbackQueueTests")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        var configuration = APIScope.Configuration(baseURL: server.baseURL, session: engine.makeSession())
        configuration.callbackQueue = queue
        let scope = APIScope(name: "callback-queue-\(engine)", configuration: configuration)
        let onQueue = Locked<Bool?>(nil)
        let operation = APIManager.withDefaultAPI(scope) { APIManager.operation(Methods.json, as: Answer.self) }
        operation.onCompletion { result in
            onQueue.withLock { $0 = DispatchQueue.getSpecific(key: key) == 7 }
        }
        #expect(operation.callbackQueue === queue)
        let answer = try await operation.run()
        #expect(answer.id == 1)
        #expect(onQueue.withLock { $0 } == true)
    }
}
