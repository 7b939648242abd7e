import Foundation
import NetOps
import NetOpsNIO
import TestSupport
import Testing
import Validator

@testable import APILayer

private struct Item: Decodable, Sendable {
    let id: Int
    let name: String
}

private enum InternalAPI: String, APIMethod {
    case json

    var httpMethod: HTTPMethod { .get }
    var encoding: RequestEncoding { .query }
    var defaultParameters: Parameters { [:] }
    var validation: ValidationPolicy { .custom { _ in [] } }
}

/// An API behind a private CA that requires a client certificate: its scope's `tls` carries
/// both, on the SwiftNIO engine; on a URLSession session the call fails at `construction`.
/// Exclusive, as `TLSTransportTests`: each test starts an nginx and runs openssl.
@Suite(.serialized, .processGate(.exclusive, minutes: 2), .requires(.nginx, .openssl))
struct ScopeTLSTests {
    @Test func aScopeWithAPrivateCAAndAClientCertificateCallsItsAPI() async throws {
        try await withTLSNginx { files, nginx in
            var engine = NIOEngineConfiguration(concurrency: 4)
            engine.retriesConnectionEstablishment = false
            let session = NetworkSession.nio(configuration: engine)
            defer { Task { try? await session.shutdownNIOEngine() } }
            var configuration = APIScope.Configuration(baseURL: nginx.mutualTLS, session: session)
            configuration.tls = try TLSSettings(
                trustRoots: .only(.file(files.caCertificate.path)), clientCertificate: .file(files.clientCertificate.path),
                clientKey: .file(files.clientKey.path))
            let scope = APIScope(name: "internal", configuration: configuration)
            let item = try await APIManager.withDefaultAPI(scope) {
                try await APIManager.operation(InternalAPI.json, as: Item.self).run()
            }
            #expect(item.name == "APILayer")
            // The same API without the client certificate: nginx answers 400.
            scope.configure { $0.tls = try? TLSSettings(trustRoots: .only(.file(files.caCertificate.path))) }
            _ = await APIManager.withDefaultAPI(scope) {
                await #expect(throws: APIError.self) { try await APIManager.operation(InternalAPI.json, as: Item.self).run() }
            }
        }
    }

    @Test func aURLSessionScopeRefusesTLSSettingsAtConstruction() async throws {
        try await withTLSNginx { files, nginx in
            var configuration = APIScope.Configuration(baseURL: nginx.http1, session: TestEngine.urlSession.makeSession())
            configuration.tls = try TLSSettings(trustRoots: .only(.file(files.caCertificate.path)))
            let scope = APIScope(name: "internal-on-urlsession", configuration: configuration)
            let operation = APIManager.withDefaultAPI(scope) { APIManager.operation(InternalAPI.json, as: Item.self) }
            _ = try? await operation.run()
            guard case let .failure(error)? = operation.result else {
                Issue.record("no failure")
                return
            }
            #expect(error.stageName == "construction")
            #expect("\(error)".contains("NetworkSession.nio"), "\(error)")
            #expect(!nginx.accessLog().contains("/json"), "a request was sent")
            // Keeping an https API on HTTP/1.1 is refused the same way.
            scope.configure {
                $0.tls = nil
                $0.allowsHTTP2 = false
            }
            let http1 = APIManager.withDefaultAPI(scope) { APIManager.operation(InternalAPI.json, as: Item.self) }
            _ = try? await http1.run()
            guard case let .failure(second)? = http1.result else {
                Issue.record("no failure")
                return
            }
            #expect(second.stageName == "construction")
        }
    }
}
