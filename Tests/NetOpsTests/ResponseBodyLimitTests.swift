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

    /// Runs a GET of `path` on `engine` with `limit`.
    static func fetch(_ path: String, limit: Int64, on engine: TestEngine) async throws -> DataTaskOperation {
        let operation = DTO.get(try await TestServer.url(path)).on(engine)
        operation.maximumResponseBodyBytes = limit
        operation.retryPolicy = .standard
        _ = try? await operation.run()
        return operation
    }

    /// Checks that `operation` failed with the body-too-large error and kept nothing.
    static func expectTooLarge(_ operation: DataTaskOperation) {
        #expect(operation.state == .failedFinished)
        #expect(isTooLarge(operation.error), "\(String(describing: operation.error))")
        #expect(operation.attemptsMade == 1, "not retried")
        #expect(operation.receivedData.isEmpty, "what arrived is dropped")
    }

    /// `Content-Length` announces the body: one byte over the limit fails, the limit itself passes.
    @Test(arguments: TestEngine.allCases)
    func aBodyAnnouncedLongerThanTheLimitFails(_ engine: TestEngine) async throws {
        Self.expectTooLarge(try await Self.fetch("bytes/5000", limit: 4_999, on: engine))
        #expect(try await Self.fetch("bytes/5000", limit: 5_000, on: engine).receivedData.count == 5_000)
    }

    /// Chunked, no `Content-Length`: the limit is found as the bytes arrive.
    @Test(arguments: TestEngine.allCases)
    func anUnannouncedBodyFailsWhenItPassesTheLimit(_ engine: TestEngine) async throws {
        Self.expectTooLarge(try await Self.fetch("chunked/300000", limit: 100_000, on: engine))
        #expect(try await Self.fetch("chunked/300000", limit: 300_000, on: engine).receivedData.count == 300_000)
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
