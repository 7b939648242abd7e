import APILayer
import DemoServer
import Foundation
import NetOps
import NetOpsNIO
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// No cookie is sent or kept unless an API asks for them; an API that does keeps its own jar, in
/// memory, and RFC 6265's rules decide which request gets which cookie.
@Suite("Security: cookies")
struct CookieSecurityTests {
    struct Echo: Decodable {
        let headers: [String: String]
    }

    static func setCookies(_ values: [String]) async throws -> URL {
        var components = URLComponents(url: try await TestServer.url("cookies/set"), resolvingAgainstBaseURL: false)!
        components.queryItems = values.map { URLQueryItem(name: "cookie", value: $0) }
        return components.url!
    }

    /// The cookie header the shared server receives for `operation`'s session and jar.
    static func cookieSent(on engine: TestEngine, jar: CookieJar?, path: String = "echo") async throws -> String? {
        let echo = DTO.get(try await TestServer.url(path)).on(engine)
        echo.cookieJar = jar
        try await echo.run()
        return try echo.decode(Echo.self).headers["cookie"]
    }

    /// FoundationNetworking's default is the process-wide, persisted `HTTPCookieStorage.shared`:
    /// a cookie one API set went to every other.
    @Test(arguments: TestEngine.allCases)
    func aPlainOperationNeitherKeepsNorSendsCookies(_ engine: TestEngine) async throws {
        let name = "plain\(UUID().uuidString.prefix(6))"
        try await DTO.get(try await Self.setCookies(["\(name)=1; Path=/"])).on(engine).run()
        let sent = try await Self.cookieSent(on: engine, jar: nil)
        #expect(sent?.contains(name) != true, "\(sent ?? "")")
    }

    @Test(arguments: TestEngine.allCases)
    func anAPIsCookiesGoToThatAPIOnly(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let first = APIScope(name: "cookies-a")
        let second = APIScope(name: "cookies-b")
        for scope in [first, second] {
            scope.configure {
                $0.baseURL = server.baseURL
                $0.session = engine.session
                $0.usesCookies = true
            }
        }
        let login = DTO.get(try await Self.setCookies(["session=\(UUID().uuidString); Path=/; HttpOnly"])).on(engine)
        first.adopt(login, tokenPlacement: nil)
        try await login.run()
        #expect(first.cookieJar.count == 1)

        let mine = DTO.get(try await TestServer.url("echo")).on(engine)
        first.adopt(mine, tokenPlacement: nil)
        try await mine.run()
        #expect(try mine.decode(Echo.self).headers["cookie"]?.hasPrefix("session=") == true)

        let theirs = DTO.get(try await TestServer.url("echo")).on(engine)
        second.adopt(theirs, tokenPlacement: nil)
        try await theirs.run()
        #expect(try theirs.decode(Echo.self).headers["cookie"] == nil)
    }

    @Test(arguments: TestEngine.allCases)
    func pathSecureAndExpiryAreHonoured(_ engine: TestEngine) async throws {
        let jar = CookieJar()
        let set = DTO.get(
            try await Self.setCookies([
                "root=1; Path=/", "other=2; Path=/elsewhere", "secure=3; Secure; Path=/", "gone=4; Max-Age=0; Path=/",
                "old=5; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Path=/", "later=6; Expires=Wed, 21 Oct 2099 07:28:00 GMT; Path=/",
                "here=7",
            ])
        ).on(engine)
        set.cookieJar = jar
        try await set.run()
        let sent = try #require(try await Self.cookieSent(on: engine, jar: jar))
        let names = Set(sent.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).split(separator: "=").first.map(String.init) ?? "" })
        // `here` has the default path, /cookies: not sent to /echo.
        #expect(names == ["root", "later"])
    }

    /// `/redirect/302?to=target` on the shared server (127.0.0.1).
    static func redirect(to target: URL) async throws -> URL {
        var components = URLComponents(url: try await TestServer.url("redirect/302"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "to", value: target.absoluteString)]
        return components.url!
    }

    /// `cookies/set?cookie=…` on `base`.
    static func setCookies(_ values: [String], on base: URL) -> URL {
        var components = URLComponents(url: URL(string: "cookies/set", relativeTo: base)!.absoluteURL, resolvingAgainstBaseURL: false)!
        components.queryItems = values.map { URLQueryItem(name: "cookie", value: $0) }
        return components.url!
    }

    /// A host a redirect reached (another origin) cannot put a cookie in the API's jar: it is not
    /// stored, and no later request carries it.
    @Test(arguments: TestEngine.allCases)
    func aRedirectTargetCannotSetACookie(_ engine: TestEngine) async throws {
        let other = try await OtherOriginServer.get()
        let jar = CookieJar()
        let login = DTO.get(try await Self.redirect(to: Self.setCookies(["sid=evil; Path=/"], on: other.baseURL))).on(engine)
        login.cookieJar = jar
        try await login.run()
        #expect(login.response?.url?.host == "127.0.0.2")
        #expect(jar.count == 0)
        let next = DTO.get(URL(string: "echo", relativeTo: other.baseURL)!.absoluteURL).on(engine)
        next.cookieJar = jar
        try await next.run()
        #expect(try next.decode(Echo.self).headers["cookie"] == nil)
    }

    /// The shared-suffix attack: the API on `api.apilayer.test` redirects (an open redirect) to
    /// `evil.apilayer.test`, which sets `sid=evil; Domain=apilayer.test; Path=/api`; the API's next
    /// call must not carry it. NIO only: the names resolve through `dnsOverride`, which libcurl
    /// has no equivalent of.
    @Test func aSiblingHostCannotSetACookieForTheAPI() async throws {
        let server = try await TestServer.get()
        let other = try await OtherOriginServer.get()
        var configuration = TestEngine.nioConfiguration
        configuration.dnsOverride = ["api.apilayer.test": "127.0.0.1", "evil.apilayer.test": "127.0.0.2"]
        try await withNIOSession(configuration) { session in
            let api = URL(string: "http://api.apilayer.test:\(server.port)/")!
            let evil = URL(string: "http://evil.apilayer.test:\(other.port)/")!
            let jar = CookieJar()
            var components = URLComponents(url: URL(string: "redirect/302", relativeTo: api)!.absoluteURL, resolvingAgainstBaseURL: false)!
            components.queryItems = [
                URLQueryItem(name: "to", value: Self.setCookies(["sid=evil; Domain=apilayer.test; Path=/"], on: evil).absoluteString)
            ]
            let bounce = DTO.get(components.url!).on(session)
            bounce.cookieJar = jar
            try await bounce.run()
            let next = DTO.get(URL(string: "echo", relativeTo: api)!.absoluteURL).on(session)
            next.cookieJar = jar
            try await next.run()
            #expect(try next.decode(Echo.self).headers["cookie"]?.contains("sid=evil") != true)
        }
    }

    @Test func aCookieForAnotherDomainOrAnIPAddressIsRefused() {
        let jar = CookieJar()
        let url = URL(string: "http://api.example.com/v1/items")!
        jar.store(
            [
                ("Set-Cookie", "a=1; Domain=attacker.example"), ("Set-Cookie", "b=2; Domain=com"), ("Set-Cookie", "c=3; Domain=example.com"),
                ("Set-Cookie", "d=4"),
            ], from: url)
        #expect(jar.cookieHeader(for: URL(string: "http://attacker.example/")!) == nil)
        #expect(jar.cookieHeader(for: URL(string: "http://www.example.com/v1/x")!) == "c=3")
        #expect(jar.cookieHeader(for: URL(string: "http://www.example.com/")!) == nil, "the default path is /v1")
        let both = jar.cookieHeader(for: URL(string: "http://api.example.com/v1/x")!) ?? ""
        #expect(Set(both.components(separatedBy: "; ")) == ["c=3", "d=4"])
        #expect(jar.cookieHeader(for: URL(string: "http://sub.api.example.com/v1/x")!) == "c=3", "d is host-only")
        let ip = CookieJar()
        ip.store([("Set-Cookie", "e=5; Domain=0.1")], from: URL(string: "http://127.0.0.1/")!)
        #expect(ip.count == 0)
    }

    /// `__Host-` cookies must be `Secure`, from https, with `Path=/` and no `Domain`; `__Secure-`
    /// cookies must be `Secure` from https (RFC 6265bis §4.1.3): the others are refused.
    @Test func cookiePrefixesAreEnforced() {
        let jar = CookieJar()
        let url = URL(string: "https://api.example.com/v1/items")!
        jar.store(
            [
                "__Host-a=1; Secure; Path=/; Domain=example.com", "__Host-b=2; Secure; Path=/v1", "__Host-c=3; Path=/", "__Secure-d=4; Path=/",
                "__Host-ok=5; Secure; Path=/", "__Secure-ok=6; Secure; Path=/", "__host-lower=7; Path=/", "__SECURE-upper=8",
            ].map { ("Set-Cookie", $0) }, from: url)
        let sent = jar.cookieHeader(for: url) ?? ""
        #expect(Set(sent.components(separatedBy: "; ")) == ["__Host-ok=5", "__Secure-ok=6"], "\(sent)")
        let plain = CookieJar()
        plain.store([("Set-Cookie", "__Secure-e=7; Secure; Path=/")], from: URL(string: "http://api.example.com/")!)
        #expect(plain.count == 0)
    }

    @Test func joinedSetCookieFieldsAreSplitWithoutBreakingDates() {
        let parts = CookieJar.split("a=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT; Path=/, b=2, c=3; Secure")
        #expect(parts == ["a=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT; Path=/", "b=2", "c=3; Secure"])
    }

    @Test func theJarIsBounded() {
        let jar = CookieJar()
        let url = URL(string: "http://api.example.com/")!
        jar.store((0..<(CookieJar.maximumCookies + 50)).map { ("Set-Cookie", "n\($0)=v") }, from: url)
        #expect(jar.count == CookieJar.maximumCookies)
        jar.store([("Set-Cookie", "big=" + String(repeating: "x", count: CookieJar.maximumCookieLength))], from: url)
        #expect(jar.cookieHeader(for: url)?.contains("big=") != true)
    }
}
