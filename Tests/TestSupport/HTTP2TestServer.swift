import DemoServer
import Foundation
import Logging
import NIOConcurrencyHelpers
import NetOps
import NetOpsNIO

/// A DemoServer over TLS that offers HTTP/2 by ALPN, with a certificate from a private CA made by
/// `openssl` (``TestCertificates``), and a NIO session that trusts that CA: the conformance cases
/// run over HTTP/2 against it. Started on first use, shared by the process's tests.
public enum HTTP2TestServer {
    private struct Running: Sendable {
        let server: DemoServer
        let session: NetworkSession
        let configuration: NIOEngineConfiguration
    }

    private static let shared = Task { () throws -> Running in
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-h2-\(UUID().uuidString)")
        // The server and the session read the files once, when they are made.
        defer { try? FileManager.default.removeItem(at: folder) }
        let certificates = try await TestCertificates.make(in: folder)
        // Both ends log at debug: a connection that every HTTP/2 case shares and that ends under
        // them leaves its reason in the run's output (the server's "Error handling inbound
        // connection", AsyncHTTPClient's "connection go away received" and "connection closed"),
        // a few lines a run otherwise.
        let server = try await DemoServer.start(
            logLevel: .debug,
            tls: DemoServerTLS(certificateChain: certificates.serverCertificate, privateKey: certificates.serverKey))
        var configuration = TestEngine.nioConfiguration
        var logger = Logger(label: "HTTP2TestServer.session")
        logger.logLevel = .debug
        configuration.logger = logger
        configuration.tls = try TLSSettings(trustRoots: .only(.file(certificates.caCertificate.path)))
        let running = Running(server: server, session: NetworkSession.nio(configuration: configuration), configuration: configuration)
        started.withLockedValue { $0 = running.session }
        return running
    }

    /// The session, once the server runs.
    private static let started = NIOLockedValueBox<NetworkSession?>(nil)

    /// The session that trusts the server's CA, for a test that reached the server already
    /// (through ``url(_:)``); traps before.
    public static var startedSession: NetworkSession {
        guard let session = started.withLockedValue({ $0 }) else {
            preconditionFailure("HTTP2TestServer.url(_:) must run before an operation is put on its session")
        }
        return session
    }

    /// The running server.
    public static func get() async throws -> DemoServer {
        try await shared.value.server
    }

    /// The NIO session that trusts the server's CA (HTTP/2 allowed, as by default).
    public static func session() async throws -> NetworkSession {
        try await shared.value.session
    }

    /// A NIO session of its own that trusts the server's CA: its connections serve no other
    /// test. For a case that may leave its connection unusable for others.
    public static func isolatedSession() async throws -> NetworkSession {
        NetworkSession.nio(configuration: try await shared.value.configuration)
    }

    /// The absolute `https` URL of `path` (with query) on the server.
    public static func url(_ path: String) async throws -> URL {
        URL(string: path, relativeTo: try await get().baseURL)!.absoluteURL
    }
}
