import APILayer
import DemoServer
import Foundation
import NetOps
import TestSupport
import Validator

extension TestServer {
    /// A realm no other test uses: its own tokens, settings and counters.
    static func newRealm() async throws -> (server: DemoServer, realm: String, base: URL) {
        let server = try await get()
        let realm = "r\(UUID().uuidString.prefix(8))"
        return (server, realm, server.baseURL.appendingPathComponent("realm/\(realm)"))
    }
}

/// `{"ok": true}` of a realm's protected route.
struct Granted: Decodable, Sendable {
    var ok: Bool
}

/// A method of whatever API the task binds whose answer is not checked: `GET <base>/ping`, for
/// calls that fail before an answer (a dead port, an open circuit).
enum PingAPI: String, APIMethod {
    case ping
    var httpMethod: HTTPMethod { .get }
    var encoding: RequestEncoding { .query }
    var defaultParameters: Parameters { [:] }
    var validation: ValidationPolicy { .custom { _ in [] } }
}

/// A realm's protected route (`GET realm/{realm}/protected`), on whatever API the task binds.
enum ProtectedAPI: String, APIMethod {
    case protected

    var path: String { "realm/{realm}/protected" }
    var httpMethod: HTTPMethod { .get }
    var encoding: RequestEncoding { .query }
    var defaultParameters: Parameters { [:] }
    var validation: ValidationPolicy { .custom { _ in [] } }
}
