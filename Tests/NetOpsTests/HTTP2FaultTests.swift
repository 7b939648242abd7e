import Foundation
import NetOpsNIO
import TestSupport
import Testing

@testable import NetOps

/// HTTP/2 breaking under an operation on the NIO engine: a stream reset before its answer or in
/// the middle of its body, a GOAWAY in the middle of a body, a streamed body's reader that stops
/// early. Every operation ends with a clear error, the session goes on serving requests, and once
/// it is shut down no connection to the server is left open. The tests run one after another:
/// the last one counts the connections to the server's port.
@Suite(.timeLimit(.minutes(2)), .serialized, .requires(.openssl))
struct HTTP2FaultTests {
    private struct Fixture: Sendable {
        let server: HTTP2FaultServer
        let configuration: NIOEngineConfiguration
    }

    /// The server, and a NIO configuration that trusts its CA. Each test makes its own session
    /// from it: a GOAWAY ends the connection of every stream on it, and the tests run side by side.
    private static let fixture = Task { () throws -> Fixture in
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-h2-faults-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let certificates = try await TestCertificates.make(in: folder)
        let server = try await HTTP2FaultServer(certificate: certificates.serverCertificate, key: certificates.serverKey)
        var configuration = TestEngine.nioConfiguration
        configuration.tls = try TLSSettings(trustRoots: .only(.file(certificates.caCertificate.path)))
        return Fixture(server: server, configuration: configuration)
    }

    /// Runs `body` with a session of its own that trusts the fault server.
    private static func withSession(_ body: (HTTP2FaultServer, NetworkSession) async throws -> Void) async throws {
        let fixture = try await fixture.value
        try await withNIOSession(fixture.configuration) { session in try await body(fixture.server, session) }
    }

    /// Runs a GET of `path` in `session` and returns the operation once it ended.
    private static func get(_ path: String, from server: HTTP2FaultServer, in session: NetworkSession) async -> DTO {
        let operation = DTO.get(server.url(path)).on(session)
        operation.retryPolicy = RetryPolicy.none
        operation.idleTimeout = 10
        _ = try? await operation.run()
        return operation
    }

    /// The session still answers over HTTP/2.
    private static func expectTheSessionGoesOn(_ server: HTTP2FaultServer, _ session: NetworkSession) async {
        let operation = await get("ok", from: server, in: session)
        #expect(operation.state == .successFinished, "\(String(describing: operation.error))")
        #expect(operation.receivedData.count == HTTP2FaultServer.bodyLength)
        #expect(operation.responseHead?.httpVersion == "HTTP/2.0")
    }

    @Test func aStreamResetBeforeItsAnswerFailsTheOperation() async throws {
        try await Self.withSession { server, session in
            let operation = await Self.get("rst-before-head", from: server, in: session)
            #expect(operation.state == .failedFinished)
            #expect(operation.response == nil)
            #expect(operation.error?.kind.name == "connectionLost", "\(String(describing: operation.error))")
            #expect(operation.error?.description.contains("HTTP/2 stream was closed with INTERNAL_ERROR") == true)
            await Self.expectTheSessionGoesOn(server, session)
        }
    }

    /// The part of the body sent before the fault arrived, and no more.
    private static func expectTruncated(_ operation: BaseOperation) {
        guard case let .truncatedBody(expected, received) = operation.error?.kind else {
            Issue.record("expected a truncated body, got \(String(describing: operation.error))")
            return
        }
        #expect(expected == Int64(HTTP2FaultServer.bodyLength))
        #expect(received == Int64(HTTP2FaultServer.faultAfter))
    }

    @Test func aStreamResetInTheMiddleOfItsBodyFailsAsTruncated() async throws {
        try await Self.withSession { server, session in
            let operation = await Self.get("rst-mid-body", from: server, in: session)
            #expect(operation.state == .failedFinished)
            Self.expectTruncated(operation)
            #expect(operation.receivedData.isEmpty, "a broken body is not kept")
            await Self.expectTheSessionGoesOn(server, session)
        }
    }

    @Test func aGoAwayInTheMiddleOfABodyFailsAsTruncated() async throws {
        try await Self.withSession { server, session in
            let operation = await Self.get("goaway-mid-body", from: server, in: session)
            #expect(operation.state == .failedFinished)
            Self.expectTruncated(operation)
            // The next request opens a new connection.
            await Self.expectTheSessionGoesOn(server, session)
        }
    }

    @Test func aStreamedBodyCutByAResetThrowsToItsReader() async throws {
        try await Self.withSession { server, session in
            let operation = SO.get(server.url("rst-mid-body")).on(session)
            operation.retryPolicy = RetryPolicy.none
            // The reset may have ended the operation before this caller saw the head: the
            // body still gives what arrived, then the error.
            _ = try? await operation.response()
            var received = 0
            do {
                for try await chunk in operation.body { received += chunk.count }
                Issue.record("the stream ended cleanly after \(received) bytes")
            } catch let error as NetOpsError {
                #expect(error.kind == .truncatedBody(expected: Int64(HTTP2FaultServer.bodyLength), received: Int64(received)))
            }
            #expect(received == HTTP2FaultServer.faultAfter)
            await Self.expectTheSessionGoesOn(server, session)
        }
    }

    /// Over DemoServer's HTTP/2: a reader that leaves cancels its stream, not the connection.
    @Test func aReaderThatLeavesAnHTTP2StreamLeavesTheConnectionUsable() async throws {
        let url = try await HTTP2TestServer.url("bytes/\(64 << 20)")
        let session = HTTP2TestServer.startedSession
        let operation = SO.get(url, bufferedBytes: 64 << 10).on(session)
        try await operation.response()
        #expect(operation.responseHead?.httpVersion == "HTTP/2.0")
        var taken = 0
        for try await chunk in operation.body {
            taken += chunk.count
            if taken > 256 << 10 { break }
        }
        await operation.finished()
        #expect(operation.state == .cancelled)
        let next = try await DTO.get(try await HTTP2TestServer.url("bytes/1000")).on(session).run()
        #expect(next.receivedData.count == 1_000)
        #expect(next.responseHead?.httpVersion == "HTTP/2.0")
    }

    /// Every fault in one session, then the session shut down: no TCP connection to the fault
    /// server is left established (or half-closed) on this side, so no descriptor stays open.
    @Test func noConnectionOutlivesItsSession() async throws {
        let fixture = try await Self.fixture.value
        try await withNIOSession(fixture.configuration) { session in
            for path in ["rst-before-head", "rst-mid-body", "goaway-mid-body", "ok"] {
                _ = await Self.get(path, from: fixture.server, in: session)
            }
            let stream = SO.get(fixture.server.url("ok"), bufferedBytes: 1 << 10).on(session)
            try await stream.response()
            var iterator = stream.body.makeAsyncIterator()
            _ = try await iterator.next()
            #expect(LoopbackConnections.held(toPort: fixture.server.port) > 0)
        }
        #expect(await eventually(within: 10) { LoopbackConnections.held(toPort: fixture.server.port) == 0 })
    }
}

/// TCP connections of this machine, as `/proc/net/tcp` lists them.
enum LoopbackConnections {
    /// Connections to `port` (any local address) that hold a socket open: established, or
    /// half-closed by the peer and not yet closed here (TIME_WAIT holds none).
    static func held(toPort port: Int) -> Int {
        guard let table = procFile("/proc/net/tcp") else { return -1 }
        let remote = String(format: "%04X", port)
        var count = 0
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 3 else { continue }
            // fields: sl, local_address, rem_address, st; 01 is ESTABLISHED, 08 CLOSE_WAIT.
            guard fields[2].hasSuffix(":" + remote), fields[3] == "01" || fields[3] == "08" else { continue }
            count += 1
        }
        return count
    }

    /// The whole text of a /proc file, read until its end: such files report no size, and a
    /// reader that trusts the size gets the first page only.
    private static func procFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var page = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = page.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes.append(contentsOf: page[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
