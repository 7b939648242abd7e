import Foundation
import Testing
@testable import NetOps

/// Redirects are followed, and credentials never travel to another origin.
struct RedirectTests {
    struct Echo: Decodable {
        let path: String
        let headers: [String: String]
    }

    static let secrets = ["Authorization": "Bearer secret-token", "Cookie": "session=secret", "Proxy-Authorization": "Basic c2VjcmV0"]

    /// `127.0.0.1` and `localhost` are different origins for the same server.
    static func redirect(to host: String) async throws -> URL {
        let server = try await TestServer.get()
        let target = "http://\(host):\(server.port)/echo"
        var components = URLComponents(url: try await TestServer.url("redirect"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "to", value: target)]
        return components.url!
    }

    @Test(arguments: TestEngine.allCases)
    func sameOriginRedirectKeepsTheHeaders(_ engine: TestEngine) async throws {
        let operation = try await DTO.get(Self.redirect(to: "127.0.0.1"), headers: Self.secrets).on(engine).run()
        let echo = try operation.decode(Echo.self)
        #expect(echo.path == "/echo")
        #expect(echo.headers["authorization"] == "Bearer secret-token")
    }

    /// FoundationNetworking on its own copies every header onto the redirected request; the
    /// URLSession engine strips them in its delegate, AsyncHTTPClient does it itself.
    @Test(arguments: TestEngine.allCases)
    func crossOriginRedirectDropsCredentials(_ engine: TestEngine) async throws {
        let operation = try await DTO.get(Self.redirect(to: "localhost"), headers: Self.secrets).on(engine).run()
        let echo = try operation.decode(Echo.self)
        #expect(echo.path == "/echo")
        #expect(echo.headers["authorization"] == nil)
        #expect(echo.headers["cookie"] == nil)
        #expect(echo.headers["proxy-authorization"] == nil)
        #expect(operation.response?.url?.host == "localhost")
    }
}
