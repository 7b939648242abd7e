import Foundation
import Logging
import NetOpsNIO
import TestSupport
import Testing

@testable import NetOps

/// What only the SwiftNIO engine has: its lifetime and its TLS opt-out.
struct NIOEngineTests {
    @Test func sessionRunsOperationsAndShutsDown() async throws {
        let session = NetworkSession.nio()
        #expect(session.isNIO)
        #expect(!NetworkSession().isNIO)
        let operation = DTO.get(try await TestServer.url("json"))
        operation.privateSession = session
        try await operation.run()
        #expect(operation.statusCode == 200)

        try await session.shutdownNIOEngine()
        try await session.shutdownNIOEngine()  // a second call does nothing
        let late = DTO.get(try await TestServer.url("json"))
        late.privateSession = session
        await #expect(throws: NetOpsError.self) { try await late.run() }
        #expect(late.state == .failedFinished)
    }

    @Test func droppedSessionShutsItselfDown() async throws {
        var session: NetworkSession? = NetworkSession.nio()
        do {
            // The operation holds its session until it is released itself (its settings are
            // fixed once it started).
            let operation = DTO.get(try await TestServer.url("json"))
            operation.privateSession = session
            try await operation.run()
        }
        session = nil
        #expect(session == nil)
    }

    /// The bomb of the conformance suite (about 160:1) fails at the default limit of 100 and
    /// decodes whole under a limit of 1 000.
    @Test func decompressionRatioLimitIsTheSessions() async throws {
        let url = try await TestServer.url("encoded-bomb/gzip?size=\(1 << 20)")
        let strict = DTO.get(url).on(.nio)
        await #expect(throws: NetOpsError.self) { try await strict.run() }
        #expect(strict.error?.description.contains("decompression bomb") == true)

        let session = NetworkSession.nio(configuration: NIOEngineConfiguration(decompressionRatioLimit: 1_000))
        let lenient = DTO.get(url)
        lenient.privateSession = session
        try await lenient.run()
        #expect(lenient.receivedData == Data(count: 1 << 20))
        try await session.shutdownNIOEngine()
    }

    @Test func turningCertificateVerificationOffIsLogged() async throws {
        let lines = LogCapture()
        let logger = Logger(label: "test") { _ in lines.handler }
        let session = NetworkSession.nio(configuration: NIOEngineConfiguration(insecureSkipCertificateVerification: true, logger: logger))
        #expect(lines.messages(atLeast: .warning).contains { $0.contains("certificate verification is OFF") })

        let quiet = LogCapture()
        let safe = NetworkSession.nio(configuration: NIOEngineConfiguration(logger: Logger(label: "test") { _ in quiet.handler }))
        try await safe.shutdownNIOEngine()
        #expect(quiet.messages(atLeast: .warning).isEmpty)
        try await session.shutdownNIOEngine()
    }
}
