import Foundation
import TestSupport
import Testing

@testable import NetOps

/// `maximumResponseBodyBytes`: a body longer than the limit ends the operation with one clear
/// error on both engines, announced or not, and memory never holds more than the limit.
@Suite(.timeLimit(.minutes(2)))
struct ResponseBodyLimitTests {
    /// True when `error` is the body-too-large error.
    static func isTooLarge(_ error: NetOpsError?) -> Bool {
        guard case let .transport(code, reason)? = error?.kind else { return false }
        return code == BaseOperation.responseBodyTooLargeCode && reason.contains("limit")
    }

    @Test(arguments: TestEngine.allCases)
    func aBodyAnnouncedLongerThanTheLimitFails(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("bytes/5000")).on(engine)
        operation.maximumResponseBodyBytes = 4_999
        operation.retryPolicy = .standard
        _ = try? await operation.run()
        #expect(operation.state == .failedFinished)
        #expect(Self.isTooLarge(operation.error), "\(String(describing: operation.error))")
        #expect(operation.receivedData.isEmpty, "what arrived is dropped")
    }

    @Test(arguments: TestEngine.allCases)
    func aBodyOfExactlyTheLimitArrives(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("bytes/5000")).on(engine)
        operation.maximumResponseBodyBytes = 5_000
        try await operation.run()
        #expect(operation.receivedData.count == 5_000)
    }

    /// Chunked, no `Content-Length`: the limit is found as the bytes arrive.
    @Test(arguments: TestEngine.allCases)
    func anUnannouncedBodyFailsWhenItPassesTheLimit(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("chunked/300000")).on(engine)
        operation.maximumResponseBodyBytes = 100_000
        _ = try? await operation.run()
        #expect(operation.state == .failedFinished)
        #expect(Self.isTooLarge(operation.error), "\(String(describing: operation.error))")
        #expect(operation.receivedData.isEmpty)
        // The same body within the limit arrives whole.
        let within = DTO.get(try await TestServer.url("chunked/300000")).on(engine)
        within.maximumResponseBodyBytes = 300_000
        try await within.run()
        #expect(within.receivedData.count == 300_000)
    }

    /// A download goes to a file: the in-memory limit does not apply.
    @Test(arguments: TestEngine.allCases)
    func downloadsAreNotLimited(_ engine: TestEngine) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netops-limit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")
        let operation = DO.get(try await TestServer.url("bytes/5000"), to: destination).on(engine)
        operation.maximumResponseBodyBytes = 100
        try await operation.run()
        #expect(try Data(contentsOf: destination).count == 5_000)
    }
}
