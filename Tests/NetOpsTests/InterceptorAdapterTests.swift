import Foundation
import NetOps
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Code written against the older `OperationInterceptor` shape still builds and runs: its
/// decisions are translated into the chain's by an adapter stage.
@Suite(.timeLimit(.minutes(1)))
struct InterceptorAdapterTests {
    /// What a call with an interceptor did.
    struct Observed: Sendable {
        let echoed: String
        let judged: Int
        let attempts: Int
        let interceptorKept: Bool
    }

    /// Runs a call the older way; the deprecated API is reached only inside it.
    protocol Scenario: Sendable {
        func run(on engine: TestEngine) async throws -> Observed
    }

    struct OldStyleCall: Scenario {}

    @Test(arguments: TestEngine.allCases) func anInterceptorStillPreparesAndJudges(_ engine: TestEngine) async throws {
        let scenario: any Scenario = OldStyleCall()
        let observed = try await scenario.run(on: engine)
        #expect(observed.echoed.contains(#""x-interceptor":"old-style""#))
        #expect(observed.interceptorKept)
        #expect(observed.judged == 2, "the first answer was judged and retried, the second accepted")
        #expect(observed.attempts == 2)
    }
}

@available(*, deprecated, message: "exercises the deprecated interceptor on purpose")
extension InterceptorAdapterTests.OldStyleCall {
    /// Adds a header, and asks for one retry of the first answer it judges.
    final class OldStyle: OperationInterceptor, Sendable {
        let judged = Locked(0)

        func adapt(_ request: URLRequest, for operation: BaseOperation) -> RequestDecision {
            var request = request
            request.setValue("old-style", forHTTPHeaderField: "X-Interceptor")
            return .proceed(request)
        }

        func judge(_ response: HTTPURLResponse, body: Data, for operation: BaseOperation) -> ResponseDecision {
            let count = judged.withLock { count in
                count += 1
                return count
            }
            return count == 1 ? .retry(after: 0) : .useDefault
        }
    }

    func run(on engine: TestEngine) async throws -> InterceptorAdapterTests.Observed {
        let interceptor = OldStyle()
        let operation = DTO.get(try await TestServer.url("echo")).on(engine)
        operation.retryPolicy = .standard
        operation.interceptor = interceptor
        let kept = operation.interceptor as? OldStyle === interceptor
        try await operation.run()
        return InterceptorAdapterTests.Observed(
            echoed: String(decoding: operation.receivedData, as: UTF8.self).lowercased(), judged: interceptor.judged.withLock { $0 },
            attempts: operation.attemptsMade, interceptorKept: kept)
    }
}
