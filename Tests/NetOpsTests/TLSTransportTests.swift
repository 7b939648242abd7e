import Foundation
import NIOCore
import NetOpsNIO
import TestSupport
import Testing

@testable import NetOps

/// TLS and HTTP/2 against a private nginx whose certificates openssl made: a private CA, a
/// client certificate, an expired and a wrong-name certificate, HTTP/2 by ALPN, connections
/// reused. The SwiftNIO engine applies `TLSSettings`; the URLSession engine refuses what it
/// cannot apply and reports TLS failures with the same error kind.
/// One test at a time, and never beside the tests that time things (the gate held exclusively):
/// each starts an nginx and runs openssl nine times, a burst the rest of a parallel run feels.
@Suite(.serialized, .processGate(.exclusive, minutes: 3), .requires(.nginx, .openssl))
struct TLSTransportTests {
    /// A NIO session of the test's own, shut down after `body`. Connection attempts are not
    /// retried (`retriesConnectionEstablishment`), so a handshake that fails ends the operation
    /// at once instead of after the connect timeout.
    private func withSession(
        _ configuration: NIOEngineConfiguration = NIOEngineConfiguration(concurrency: 8), _ body: (NetworkSession) async throws -> Void
    ) async throws {
        var configuration = configuration
        configuration.retriesConnectionEstablishment = false
        try await withNIOSession(configuration, body)
    }

    /// Trusting only the test's CA.
    private func privateCA(_ files: TestCertificates) throws -> TLSSettings {
        try TLSSettings(trustRoots: .only(.file(files.caCertificate.path)))
    }

    /// Runs a GET of `path` on `base` in `session` with `tls`, and returns the finished operation.
    private func get(
        _ path: String, on base: URL, in session: NetworkSession, tls: TLSSettings? = nil, allowsHTTP2: Bool = true
    ) async -> DTO {
        let operation = DTO.get(URL(string: path, relativeTo: base)!.absoluteURL).on(session)
        operation.tlsSettings = tls
        operation.allowsHTTP2 = allowsHTTP2
        operation.idleTimeout = 20
        _ = try? await operation.run()
        return operation
    }

    /// The TLS failure `operation` ended with, its text checked for build paths.
    private func tlsReason(_ operation: DTO) -> String? {
        guard case let .tls(reason)? = operation.error?.kind else {
            Issue.record("not a TLS failure: \(String(describing: operation.error))")
            return nil
        }
        if ProcessInfo.processInfo.environment["APILAYER_PRINT_TLS"] != nil { print("TLS reason: \(reason)") }
        #expect(!reason.contains(".build/") && !reason.contains("/Sources/") && !reason.contains(".cc:"), "a build path: \(reason)")
        return reason
    }

    @Test func aPrivateCAIsTrustedOnlyWhereItIsConfigured() async throws {
        try await withTLSNginx { files, nginx in
            try await withSession { session in
                let trusted = await get("json", on: nginx.http1, in: session, tls: try privateCA(files))
                #expect(trusted.error == nil, "\(String(describing: trusted.error))")
                #expect(String(decoding: trusted.receivedData, as: UTF8.self) == TLSNginx.json)
                // Beside the system's roots, too.
                let added = try TLSSettings(trustRoots: .systemAnd(.file(files.caCertificate.path)))
                #expect(await get("json", on: nginx.http1, in: session, tls: added).error == nil)
                // The session's own settings (the system's roots) do not know the CA.
                let untrusted = await get("json", on: nginx.http1, in: session)
                let reason = tlsReason(untrusted)
                #expect(reason?.contains("CERTIFICATE_VERIFY_FAILED") == true, "\(reason ?? "")")
            }
        }
    }

    @Test func theSessionsOwnSettingsApplyToEveryOperation() async throws {
        try await withTLSNginx { files, nginx in
            var configuration = NIOEngineConfiguration(concurrency: 4)
            configuration.tls = try privateCA(files)
            try await withSession(configuration) { session in
                let operation = await get("json", on: nginx.http1, in: session)
                #expect(operation.error == nil, "\(String(describing: operation.error))")
            }
        }
    }

    @Test func anExpiredOrWrongNameCertificateFailsAsTLS() async throws {
        try await withTLSNginx { files, nginx in
            try await withSession { session in
                let tls = try privateCA(files)
                let expired = await get("json", on: nginx.expired, in: session, tls: tls)
                #expect(tlsReason(expired)?.contains("CERTIFICATE_VERIFY_FAILED") == true)
                let wrongName = await get("json", on: nginx.wrongName, in: session, tls: tls)
                #expect(tlsReason(wrongName)?.contains("another host name") == true)
                // Turning verification off turns both checks off, never one alone.
                let insecure = await get("json", on: nginx.wrongName, in: session, tls: .insecureWithoutVerification())
                #expect(insecure.error == nil, "\(String(describing: insecure.error))")
            }
        }
    }

    /// nginx with `ssl_verify_client on` completes the handshake without a certificate and
    /// answers 400; with the client certificate it serves the request.
    @Test func aClientCertificateOpensMutualTLS() async throws {
        try await withTLSNginx { files, nginx in
            try await withSession { session in
                let identity = try TLSSettings(
                    trustRoots: .only(.file(files.caCertificate.path)), clientCertificate: .file(files.clientCertificate.path),
                    clientKey: .file(files.clientKey.path))
                let mutual = await get("json", on: nginx.mutualTLS, in: session, tls: identity)
                #expect(mutual.error == nil, "\(String(describing: mutual.error))")
                let anonymous = await get("json", on: nginx.mutualTLS, in: session, tls: try privateCA(files))
                #expect(anonymous.error?.httpStatus == 400)
            }
        }
    }

    @Test func aServerOfferingOnlyTLS10IsRefusedByDefault() async throws {
        try await withTLSNginx { files, nginx in
            try await withSession { session in
                let refused = await get("json", on: nginx.tls10Only, in: session, tls: try privateCA(files))
                let reason = tlsReason(refused)
                #expect(reason?.contains("TLS version") == true, "\(reason ?? "")")
            }
        }
    }

    @Test func http2IsNegotiatedOverTLSUnlessTurnedOff() async throws {
        try await withTLSNginx { files, nginx in
            let tls = try privateCA(files)
            try await withSession { session in
                let h2 = await get("protocol", on: nginx.http2, in: session, tls: tls)
                #expect(String(decoding: h2.receivedData, as: UTF8.self) == "HTTP/2.0", "\(String(describing: h2.error))")
                let h1 = await get("protocol", on: nginx.http2, in: session, tls: tls, allowsHTTP2: false)
                #expect(String(decoding: h1.receivedData, as: UTF8.self) == "HTTP/1.1", "\(String(describing: h1.error))")
                let cleartext = await get("protocol", on: nginx.plain, in: session)
                #expect(String(decoding: cleartext.receivedData, as: UTF8.self) == "HTTP/1.1")
                // Over HTTP/2: a gzip body decoded, a 1 MiB body whole.
                let gzip = await get("gzip.json", on: nginx.http2, in: session, tls: tls)
                #expect(String(decoding: gzip.receivedData, as: UTF8.self) == TLSNginx.gzipJSON)
                let large = await get("bytes/1m", on: nginx.http2, in: session, tls: tls)
                #expect(large.receivedData == TLSNginx.oneMebibyte())
            }
            var http1Only = NIOEngineConfiguration(concurrency: 4)
            http1Only.allowsHTTP2 = false
            try await withSession(http1Only) { session in
                let h1 = await get("protocol", on: nginx.http2, in: session, tls: tls)
                #expect(String(decoding: h1.receivedData, as: UTF8.self) == "HTTP/1.1")
            }
        }
    }

    @Test func cancellingAnHTTP2TransferEndsIt() async throws {
        try await withTLSNginx { files, nginx in
            try await withSession { session in
                let operation = DTO.get(URL(string: "bytes/1m", relativeTo: nginx.http2)!.absoluteURL).on(session)
                operation.tlsSettings = try privateCA(files)
                operation.start()
                operation.cancel()
                _ = try? await operation.run()
                #expect(operation.state == .cancelled)
                // The connection still serves the next request.
                let next = await get("protocol", on: nginx.http2, in: session, tls: try privateCA(files))
                #expect(String(decoding: next.receivedData, as: UTF8.self) == "HTTP/2.0")
            }
        }
    }

    /// Sends 400 GETs of `path` on `base`, 8 at a time, each checked by `check`; returns once
    /// nginx logged them all.
    private func send400(
        _ path: String, on base: URL, in session: NetworkSession, tls: TLSSettings, nginx: TLSNginx,
        check: @escaping @Sendable (DTO) -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<50 { check(await get(path, on: base, in: session, tls: tls)) }
                }
            }
            try await group.waitForAll()
        }
        #expect(await eventually { nginx.accessLog().split(separator: "\n").count >= 400 })
    }

    /// 400 requests at 8 at a time with one `TLSSettings`: connections are reused, so nginx
    /// sees no more TLS connections than the pool holds (the bench's `tls-handshakes` figure).
    @Test func connectionsAreReusedAcrossRequests() async throws {
        try await withTLSNginx { files, nginx in
            try await withSession { session in
                try await send400("json", on: nginx.http1, in: session, tls: try privateCA(files), nginx: nginx) { operation in
                    #expect(operation.error == nil, "\(String(describing: operation.error))")
                }
                #expect(nginx.connectionCount(to: nginx.http1) <= 8, "\(nginx.connectionCount(to: nginx.http1)) connections")
            }
        }
    }

    /// Requests awaited from tasks to an origin that answered over HTTP/2 run on one event loop
    /// each (`HTTP2Pinning`): every answer still comes over HTTP/2, and AsyncHTTPClient keeps at
    /// most one connection per loop, never one per request.
    @Test func http2RequestsStayOnOneLoopEachWithAConnectionPerLoop() async throws {
        try await withTLSNginx { files, nginx in
            try await withSession { session in
                try await send400("protocol", on: nginx.http2, in: session, tls: try privateCA(files), nginx: nginx) { operation in
                    #expect(String(decoding: operation.receivedData, as: UTF8.self) == "HTTP/2.0", "\(String(describing: operation.error))")
                }
                // The first requests, sent before the origin answered, share one connection; the
                // pinned ones after them are spread over the loops in turn, so with two loops or
                // more a second connection shows that they were pinned.
                let connections = nginx.connectionCount(to: nginx.http2)
                let loops = System.coreCount
                #expect((min(2, loops)...loops).contains(connections), "\(connections) connections for \(loops) loops")
            }
        }
    }

    /// FoundationNetworking on Linux cannot apply trust roots or a client certificate: the
    /// URLSession engine says so before anything is sent, instead of ignoring them.
    @Test func theURLSessionEngineRefusesSettingsItCannotApply() async throws {
        try await withTLSNginx { files, nginx in
            let session = TestEngine.urlSession.makeSession()
            let refused = await get("json", on: nginx.http1, in: session, tls: try privateCA(files))
            let reason = tlsReason(refused)
            #expect(reason?.contains("NetworkSession.nio") == true, "\(reason ?? "")")
            #expect(!nginx.accessLog().contains("/json"), "a request was sent")
            // The standard settings are what it does anyway: allowed, and the private CA unknown.
            let standard = await get("json", on: nginx.http1, in: session, tls: .standard)
            #expect(tlsReason(standard) != nil)
        }
    }
}
