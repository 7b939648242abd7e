import DemoServer
import Foundation
import TestSupport

extension TestServer {
    /// A realm no other test uses: its own tokens, settings and counters.
    static func newRealm() async throws -> (server: DemoServer, realm: String, base: URL) {
        let server = try await get()
        let realm = "r\(UUID().uuidString.prefix(8))"
        return (server, realm, server.baseURL.appendingPathComponent("realm/\(realm)"))
    }
}
