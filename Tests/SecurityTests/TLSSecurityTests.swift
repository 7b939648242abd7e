import Foundation
import NetOps
import NetOpsNIO
import TestSupport
import Testing

/// A client certificate identifies the service to its API: it is presented to the API's origin
/// and never to another origin a redirect leads to. NIO only: the URLSession engine cannot
/// carry a client certificate.
@Suite("Security: TLS client identity", .timeLimit(.minutes(2)), .requires(.nginx, .openssl))
struct TLSSecurityTests {
    @Test func aCrossOriginRedirectDropsTheClientCertificate() async throws {
        try await withTLSNginx { certificates, nginx in
            let session = TestEngine.nio.makeSession()
            defer { Task { try? await session.shutdownNIOEngine() } }
            let tls = try TLSSettings(
                trustRoots: .only(.file(certificates.caCertificate.path)),
                clientCertificate: .file(certificates.clientCertificate.path), clientKey: .file(certificates.clientKey.path))
            func verdict(_ url: URL) async throws -> String {
                let operation = DTO.get(url).on(session)
                operation.tlsSettings = tls
                try await operation.run()
                return String(decoding: operation.receivedData, as: UTF8.self)
            }
            let target = nginx.optionalClientCertificate.appendingPathComponent("client-certificate")
            #expect(try await verdict(target) == "verify=SUCCESS", "the API's own origin gets the certificate")
            let sameOrigin = try #require(URL(string: "\(nginx.optionalClientCertificate.absoluteString)redirect?to=\(target.absoluteString)"))
            #expect(try await verdict(sameOrigin) == "verify=SUCCESS", "a redirect on the same origin keeps it")
            let crossOrigin = try #require(URL(string: "\(nginx.http1.absoluteString)redirect?to=\(target.absoluteString)"))
            #expect(try await verdict(crossOrigin) == "verify=NONE", "the redirect's target got the client certificate")
        }
    }
}
