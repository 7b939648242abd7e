import Foundation
import Logging
@testable import NetOps
import NetOpsNIO
import Testing

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
        let operation = DTO.get(try await TestServer.url("json"))
        operation.privateSession = session
        try await operation.run()
        operation.privateSession = nil
        session = nil
        #expect(session == nil)
    }

    @Test func turningCertificateVerificationOffIsLogged() async throws {
        let lines = LogCapture()
        let logger = Logger(label: "test") { _ in lines.handler }
        let session = NetworkSession.nio(configuration: NIOEngineConfiguration(insecureSkipCertificateVerification: true, logger: logger))
        #expect(lines.messages.contains { $0.contains("certificate verification is OFF") })

        let quiet = LogCapture()
        let safe = NetworkSession.nio(configuration: NIOEngineConfiguration(logger: Logger(label: "test") { _ in quiet.handler }))
        try await safe.shutdownNIOEngine()
        #expect(quiet.messages.isEmpty)
        try await session.shutdownNIOEngine()
    }
}

/// Keeps the warning-or-worse messages logged through its `handler`.
final class LogCapture: Sendable {
    private let lines = Locked<[String]>([])

    var messages: [String] { lines.withLock { $0 } }

    /// A log handler that records into this capture.
    var handler: Handler { Handler(lines: lines) }

    struct Handler: LogHandler {
        let lines: Locked<[String]>
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            guard event.level >= .warning else { return }
            lines.withLock { $0.append(event.message.description) }
        }
    }
}
