import Foundation
import TestSupport
import Testing

@testable import NetOps

/// Bad URLs, dead servers and broken bodies end the operation with a clear error: never a hang,
/// never a crash.
@Suite(.timeLimit(.minutes(1)))
struct BadInputTests {
    @Test(arguments: TestEngine.allCases) func invalidURL(_ engine: TestEngine) async throws {
        let operation = DTO.get("not a url").on(engine)
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.state == .failedFinished)
        #expect(operation.error?.kind == .invalidURL("not a url"))
        #expect(operation.error?.description.contains("not a url") == true)
    }

    @Test(arguments: TestEngine.allCases) func unsupportedScheme(_ engine: TestEngine) async throws {
        let operation = DTO.get("ftp2://127.0.0.1/file").on(engine)
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.error?.kind == .unsupportedScheme("ftp2"))
        #expect(operation.error?.url?.absoluteString == "ftp2://127.0.0.1/file")
    }

    @Test(arguments: TestEngine.allCases) func closedPort(_ engine: TestEngine) async throws {
        let port = try unusedPort()
        let operation = DTO.get("http://127.0.0.1:\(port)/json").on(engine)
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        guard case .cannotConnect = operation.error?.kind else {
            Issue.record("expected cannotConnect, got \(String(describing: operation.error))")
            return
        }
        #expect(operation.error?.url?.port == port)
    }

    /// The server promises a length, sends half and closes the connection.
    @Test(arguments: TestEngine.allCases, [false, true])
    func connectionClosedMidBody(_ engine: TestEngine, download: Bool) async throws {
        let url = try await TestServer.url("truncated/\(1 << 20)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netops-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let operation: BaseOperation = download ? DO.get(url, to: directory.appendingPathComponent("f")).on(engine) : DTO.get(url).on(engine)
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.state == .failedFinished)
        switch operation.error?.kind {
        case .truncatedBody, .connectionLost, .transport: break
        default: Issue.record("unexpected error \(String(describing: operation.error))")
        }
        if download {
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("f").path))
        }
    }

    @Test(arguments: TestEngine.allCases) func unencodableJSONParameters(_ engine: TestEngine) async throws {
        let operation = DTO.post(try await TestServer.url("echo"), parameters: ["date": Date()]).on(engine)
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        guard case .invalidBody = operation.error?.kind else {
            Issue.record("expected invalidBody, got \(String(describing: operation.error))")
            return
        }
    }

    @Test func errorDescriptionsHideQueryStrings() {
        let error = NetOpsError(.httpStatus(401), url: URL(string: "http://host/users.get?access_token=SECRET&v=5"))
        #expect(!error.description.contains("SECRET"))
        #expect(error.description.contains("http://host/users.get"))
    }
}
