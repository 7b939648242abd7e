import APILayer
import DemoServer
import Foundation
import NetOps
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a redirect may carry, the same on both engines: every header and parameter an operation
/// declares secret stays on its origin, a body never follows to another origin, https never
/// steps down to http, and the token request follows no redirect at all.
@Suite("Security: redirects")
struct RedirectSecurityTests {
    struct Echo: Decodable {
        let method: String
        let path: String
        let query: [String: String]
        let headers: [String: String]
        let bodyLength: Int
    }

    static let secret = "s3cret-\(UUID().uuidString)"

    /// `/redirect/{code}?to=target` on the shared server (127.0.0.1).
    static func redirect(_ code: Int, to target: URL) async throws -> URL {
        var components = URLComponents(url: try await TestServer.url("redirect/\(code)"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "to", value: target.absoluteString)]
        return components.url!
    }

    /// `echo` on the other origin (127.0.0.2), with `query`.
    static func otherEcho(query: String = "keep=1") async throws -> URL {
        URL(string: "echo?\(query)", relativeTo: try await OtherOriginServer.get().baseURL)!.absoluteURL
    }

    static func sameEcho(query: String = "keep=1") async throws -> URL {
        try await TestServer.url("echo?\(query)")
    }

    @Test(arguments: TestEngine.allCases)
    func aHeaderTheRedactionNamesStaysOnItsOrigin(_ engine: TestEngine) async throws {
        let operation = DTO.get(
            try await Self.redirect(302, to: Self.otherEcho()), headers: ["X-Tenant-Key": Self.secret, "X-Plain": "visible"]
        ).on(engine)
        operation.redaction = Redaction(headers: ["X-Tenant-Key"])
        try await operation.run()
        let echo = try operation.decode(Echo.self)
        #expect(echo.headers["x-tenant-key"] == nil)
        // A field of the caller's own that is no credential stays behind too: only the fields a
        // request needs anywhere follow to another origin.
        #expect(echo.headers["x-plain"] == nil)
        #expect(operation.response?.url?.host == "127.0.0.2")
    }

    @Test(arguments: TestEngine.allCases)
    func aSameOriginRedirectKeepsTheSecretHeader(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await Self.redirect(302, to: Self.sameEcho()), headers: ["X-Tenant-Key": Self.secret]).on(engine)
        operation.redaction = Redaction(headers: ["X-Tenant-Key"])
        try await operation.run()
        #expect(try operation.decode(Echo.self).headers["x-tenant-key"] == Self.secret)
    }

    @Test(arguments: TestEngine.allCases)
    func aSecretQueryParameterStaysOnItsOrigin(_ engine: TestEngine) async throws {
        let target = try await Self.otherEcho(query: "api_key=\(Self.secret)&access_token=\(Self.secret)&keep=1")
        let operation = DTO.get(try await Self.redirect(302, to: target)).on(engine)
        operation.redaction = Redaction(parameters: ["api_key"])
        try await operation.run()
        let echo = try operation.decode(Echo.self)
        #expect(echo.query["api_key"] == nil)
        #expect(echo.query["access_token"] == nil)
        #expect(echo.query["keep"] == "1")
    }

    /// A 307 keeps the method and the body: to another origin, it is not followed.
    @Test(arguments: TestEngine.allCases, [307, 308])
    func aBodyNeverFollowsToAnotherOrigin(_ engine: TestEngine, _ code: Int) async throws {
        let other = try await OtherOriginServer.get()
        let realm = "body-\(UUID().uuidString.prefix(8))"
        let operation = DTO.post(
            try await Self.redirect(code, to: other.tokenURL(realm: realm)),
            parameters: ["grant_type": "client_credentials", "client_secret": Self.secret], encoding: .form
        ).on(engine)
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.error?.httpStatus == code)
        #expect(operation.response?.url?.host == "127.0.0.1")
        #expect(other.tokenAuthority(realm: realm).snapshot.tokenRequests == 0)
    }

    @Test(arguments: TestEngine.allCases)
    func aBodyFollowsA307OnItsOwnOrigin(_ engine: TestEngine) async throws {
        let operation = DTO.post(try await Self.redirect(307, to: Self.sameEcho()), parameters: ["note": "kept"], encoding: .form)
            .on(engine)
        try await operation.run()
        let echo = try operation.decode(Echo.self)
        #expect(echo.method == "POST")
        #expect(echo.bodyLength == "note=kept".utf8.count)
    }

    /// 303 turns into a GET without a body; a GET may go anywhere, without the credentials.
    @Test(arguments: TestEngine.allCases)
    func a303ToAnotherOriginGoesAsAGETWithoutBodyOrCredentials(_ engine: TestEngine) async throws {
        let operation = DTO.post(
            try await Self.redirect(303, to: Self.otherEcho()), parameters: ["client_secret": Self.secret], encoding: .form,
            headers: ["Authorization": "Bearer \(Self.secret)"]
        ).on(engine)
        try await operation.run()
        let echo = try operation.decode(Echo.self)
        #expect(echo.method == "GET")
        #expect(echo.bodyLength == 0)
        #expect(echo.headers["authorization"] == nil)
    }

    @Test(arguments: TestEngine.allCases)
    func anOperationThatFollowsNoRedirectEndsWithThe3xx(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await Self.redirect(302, to: Self.sameEcho())).on(engine)
        operation.followsRedirects = false
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.error?.httpStatus == 302)
        #expect(operation.response?.value(forHTTPHeaderField: "Location") != nil)
    }

    /// The refresh request carries the refresh token and the client secret: it follows no
    /// redirect, so a token URL that redirects elsewhere fails the refresh and sends them nowhere.
    @Test func theTokenRequestFollowsNoRedirect() async throws {
        let realm = "redirect-\(UUID().uuidString.prefix(8))"
        let other = try await OtherOriginServer.get()
        // 303 would turn the POST into a body-less GET to another origin, which redirects allow:
        // the token request alone refuses it.
        let tokenURL = try await Self.redirect(303, to: other.tokenURL(realm: realm))
        let authenticator = OAuthClientCredentialsAuthenticator(tokenURL: tokenURL, clientID: "demo", clientSecret: Self.secret)
        await #expect(throws: AuthenticationError.self) { try await authenticator.refresh(current: nil) }
        #expect(other.tokenAuthority(realm: realm).snapshot.tokenRequests == 0)
    }

    @Test func httpsNeverStepsDownToHTTP() {
        var request = URLRequest(url: URL(string: "https://api.example.com/a")!)
        request.setValue("Bearer x", forHTTPHeaderField: "Authorization")
        for code in [301, 302, 303, 307, 308] {
            let step = RedirectPolicy.step(
                after: request, status: code, target: URL(string: "http://api.example.com/b")!, hasBody: false, rules: .standard)
            #expect(step == .deliver, "\(code)")
        }
        let upgrade = RedirectPolicy.step(
            after: URLRequest(url: URL(string: "http://api.example.com/a")!), status: 301,
            target: URL(string: "https://api.example.com/b")!, hasBody: false, rules: .standard)
        guard case let .follow(next, _) = upgrade else {
            Issue.record("http to https not followed")
            return
        }
        #expect(next.url?.scheme == "https")
    }
}
