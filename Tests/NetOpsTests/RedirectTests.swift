import DemoServer
import Foundation
import TestSupport
import Testing

@testable import NetOps

/// Redirects are followed, and credentials never travel to another origin (scheme, host or
/// port), on either engine.
struct RedirectTests {
    struct Echo: Decodable {
        let path: String
        let query: [String: String]
        let headers: [String: String]
    }

    static let secret = "secret-\(UUID().uuidString)"
    static let secrets = [
        "Authorization": "Bearer \(secret)", "Cookie": "session=\(secret)", "Proxy-Authorization": "Basic \(secret)",
    ]

    /// A second server: another port is another origin.
    private static let other = Task { try await DemoServer.start() }

    /// `/redirect?to=target` on the shared server.
    static func redirect(to target: URL) async throws -> URL {
        var components = URLComponents(url: try await TestServer.url("redirect"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "to", value: target.absoluteString)]
        return components.url!
    }

    /// `echo?access_token=…&keep=1` on `base`: a target that a careless server put the token into.
    static func echo(on base: URL, token: Bool = false) -> URL {
        URL(string: token ? "echo?access_token=\(secret)&keep=1" : "echo?keep=1", relativeTo: base)!.absoluteURL
    }

    static func follow(to target: URL, on engine: TestEngine) async throws -> (Echo, DTO) {
        let operation = try await DTO.get(redirect(to: target), headers: secrets).on(engine).run()
        return (try operation.decode(Echo.self), operation)
    }

    @Test(arguments: TestEngine.allCases)
    func sameOriginRedirectKeepsTheHeaders(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let (echo, _) = try await Self.follow(to: Self.echo(on: server.baseURL), on: engine)
        #expect(echo.path == "/echo")
        #expect(echo.headers["authorization"] == "Bearer \(Self.secret)")
        #expect(echo.headers["cookie"] == "session=\(Self.secret)")
    }

    /// FoundationNetworking on its own copies every header onto the redirected request; the
    /// URLSession engine strips them in its delegate (`RedirectPolicy`), AsyncHTTPClient itself.
    @Test(arguments: TestEngine.allCases)
    func redirectToAnotherHostDropsCredentials(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let byName = URL(string: "http://localhost:\(server.port)/")!
        let (echo, operation) = try await Self.follow(to: Self.echo(on: byName), on: engine)
        #expect(echo.path == "/echo")
        #expect(echo.headers["authorization"] == nil)
        #expect(echo.headers["cookie"] == nil)
        #expect(echo.headers["proxy-authorization"] == nil)
        #expect(echo.query["keep"] == "1")
        #expect(operation.response?.url?.host == "localhost")
        #expect(!String(decoding: operation.receivedData, as: UTF8.self).contains(Self.secret))
    }

    @Test(arguments: TestEngine.allCases)
    func redirectToAnotherPortDropsCredentials(_ engine: TestEngine) async throws {
        let second = try await Self.other.value
        let (echo, operation) = try await Self.follow(to: Self.echo(on: second.baseURL), on: engine)
        #expect(operation.statusCode == 200)
        #expect(echo.headers["authorization"] == nil)
        #expect(echo.headers["cookie"] == nil)
        #expect(echo.headers["proxy-authorization"] == nil)
        #expect(!String(decoding: operation.receivedData, as: UTF8.self).contains(Self.secret))
    }

    /// A token parameter a server copied into a cross-origin `Location` is dropped too. Only the
    /// URLSession engine sees each redirect before it is followed; AsyncHTTPClient follows it
    /// on its own (documented in Docs/engines.md: keep tokens in headers on the NIO engine).
    @Test func redirectToAnotherPortDropsTheTokenParameterOnURLSession() async throws {
        let second = try await Self.other.value
        let (echo, _) = try await Self.follow(to: Self.echo(on: second.baseURL, token: true), on: .urlSession)
        #expect(echo.query["access_token"] == nil)
        #expect(echo.query["keep"] == "1")
    }

    @Test func sameOriginRedirectKeepsTheTokenParameter() async throws {
        let server = try await TestServer.get()
        let (echo, _) = try await Self.follow(to: Self.echo(on: server.baseURL, token: true), on: .urlSession)
        #expect(echo.query["access_token"] == Self.secret)
    }

    @Test func originComparison() {
        let base = URL(string: "http://127.0.0.1:8080/a")!
        #expect(RedirectPolicy.sameOrigin(base, URL(string: "http://127.0.0.1:8080/b?c=1")!))
        #expect(!RedirectPolicy.sameOrigin(base, URL(string: "http://127.0.0.1:8081/a")!))
        #expect(!RedirectPolicy.sameOrigin(base, URL(string: "https://127.0.0.1:8080/a")!))
        #expect(!RedirectPolicy.sameOrigin(base, URL(string: "http://localhost:8080/a")!))
        #expect(RedirectPolicy.sameOrigin(URL(string: "http://example.com/a")!, URL(string: "http://EXAMPLE.com:80/b")!))
    }
}
