import DemoServer
import Foundation
import Testing
@testable import NetOps

/// Credentials never follow a redirect to another origin (scheme, host or port), and still
/// follow one to the same origin. Parameterised over engines so that other engines join by
/// adding a case.
struct RedirectTests {
    /// The engines under test.
    enum Engine: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case urlsession

        func session() -> NetworkSession {
            switch self {
            case .urlsession: NetworkSession()
            }
        }

        var testDescription: String { rawValue }
    }

    struct Echo: Decodable {
        let query: [String: String]
        let headers: [String: String]
    }

    static let secret = "secret-\(UUID().uuidString)"

    /// A second server: another port is another origin.
    private static let other = Task { try await DemoServer.start() }

    /// GET `first/redirect?to=target` with every kind of credential, following the redirect.
    static func followed(from first: URL, to target: URL, engine: Engine) async throws -> (Echo, DTO) {
        var components = URLComponents(url: first.appendingPathComponent("redirect"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "to", value: target.absoluteString)]
        let operation = DTO.get(components.url!, headers: [
            "Authorization": "Bearer \(secret)",
            "Proxy-Authorization": "Basic \(secret)",
            "Cookie": "session=\(secret)",
        ])
        operation.privateSession = engine.session()
        try await operation.run()
        return (try JSONDecoder().decode(Echo.self, from: operation.receivedData), operation)
    }

    /// `echo?access_token=…&keep=1` on `base`: a target that received the token parameter from
    /// a careless server.
    static func echo(on base: URL) -> URL {
        URL(string: "echo?access_token=\(secret)&keep=1", relativeTo: base)!.absoluteURL
    }

    @Test(arguments: Engine.allCases)
    func redirectToAnotherPortDropsCredentials(engine: Engine) async throws {
        let first = try await TestServer.get()
        let second = try await Self.other.value
        let (echo, operation) = try await Self.followed(from: first.baseURL, to: Self.echo(on: second.baseURL), engine: engine)
        #expect(operation.statusCode == 200)
        #expect(echo.headers["authorization"] == nil)
        #expect(echo.headers["proxy-authorization"] == nil)
        #expect(echo.headers["cookie"] == nil)
        #expect(echo.query["access_token"] == nil)
        #expect(echo.query["keep"] == "1")
        #expect(!String(decoding: operation.receivedData, as: UTF8.self).contains(Self.secret))
    }

    @Test(arguments: Engine.allCases)
    func redirectToAnotherHostDropsCredentials(engine: Engine) async throws {
        let server = try await TestServer.get()
        let byName = URL(string: "http://localhost:\(server.port)/")!
        let (echo, operation) = try await Self.followed(from: server.baseURL, to: Self.echo(on: byName), engine: engine)
        #expect(operation.statusCode == 200)
        #expect(echo.headers["authorization"] == nil)
        #expect(echo.headers["cookie"] == nil)
        #expect(echo.query["access_token"] == nil)
        #expect(!String(decoding: operation.receivedData, as: UTF8.self).contains(Self.secret))
    }

    @Test(arguments: Engine.allCases)
    func redirectToTheSameOriginKeepsCredentials(engine: Engine) async throws {
        let server = try await TestServer.get()
        let (echo, operation) = try await Self.followed(from: server.baseURL, to: Self.echo(on: server.baseURL), engine: engine)
        #expect(operation.statusCode == 200)
        #expect(echo.headers["authorization"] == "Bearer \(Self.secret)")
        #expect(echo.query["access_token"] == Self.secret)
    }

    @Test func originComparison() {
        let base = URL(string: "http://127.0.0.1:8080/a")!
        #expect(SessionDelegateRouter.sameOrigin(base, URL(string: "http://127.0.0.1:8080/b?c=1")!))
        #expect(!SessionDelegateRouter.sameOrigin(base, URL(string: "http://127.0.0.1:8081/a")!))
        #expect(!SessionDelegateRouter.sameOrigin(base, URL(string: "https://127.0.0.1:8080/a")!))
        #expect(!SessionDelegateRouter.sameOrigin(base, URL(string: "http://localhost:8080/a")!))
        #expect(SessionDelegateRouter.sameOrigin(URL(string: "http://example.com/a")!, URL(string: "http://EXAMPLE.com:80/b")!))
        #expect(!SessionDelegateRouter.sameOrigin(nil, base))
    }
}
