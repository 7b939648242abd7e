import Foundation
import NetOps
import TestSupport
import Testing

/// A failure that comes back the same on every attempt is not retried: retrying a decompression
/// bomb, a redirect loop or an oversized body only multiplies the cost to the client (and the
/// load on the server).
@Suite("Security: deterministic failures are not retried", .timeLimit(.minutes(2)))
struct RetrySecurityTests {
    /// A policy that would retry any transient failure at once, three more times.
    static let eager = RetryPolicy(maximumAttempts: 4, retryBudget: 30, baseDelay: 0, maximumDelay: 0)

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let path: String
        let code: Int
        /// The body limit the operation gets, when the case needs one.
        let bodyLimit: Int64?
        var testDescription: String { name }
    }

    static let cases = [
        Case(name: "decompression bomb", path: "encoded-bomb/gzip?size=\(8 << 20)", code: -1016, bodyLimit: nil),
        Case(name: "redirect loop", path: "redirect-loop", code: -1007, bodyLimit: nil),
        Case(name: "endless redirects", path: "redirect-chain/0", code: -1007, bodyLimit: nil),
        Case(name: "body over the limit", path: "bytes/\(256 << 10)", code: BaseOperation.responseBodyTooLargeCode, bodyLimit: 64 << 10),
    ]

    /// Each deterministic failure ends the operation after one request, on both engines.
    @Test(arguments: TestEngine.allCases, cases)
    func aDeterministicFailureIsSentOnce(_ engine: TestEngine, _ testCase: Case) async throws {
        let operation = DTO.get(try await TestServer.url(testCase.path)).on(engine)
        operation.retryPolicy = Self.eager
        if let limit = testCase.bodyLimit { operation.maximumResponseBodyBytes = limit }
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        guard case let .transport(code, _)? = operation.error?.kind else {
            Issue.record("expected a transport failure, got \(String(describing: operation.error))")
            return
        }
        #expect(code == testCase.code)
        #expect(operation.attemptsMade == 1, "a \(testCase.name) was sent \(operation.attemptsMade) times")
    }

    /// The policy's own verdict, without a network: the three codes are not transient, other
    /// transport failures still are.
    @Test(arguments: [
        (ContentDecoding.failureCode, false), (-1007, false), (BaseOperation.responseBodyTooLargeCode, false), (-1005, true), (-1001, true),
    ])
    func theDeterministicCodesAreNotTransient(_ code: Int, _ transient: Bool) {
        let error = NetOpsError(.transport(code: code, reason: "test"), url: nil)
        #expect(RetryPolicy.standard.isTransient(error) == transient)
    }
}
