import APILayer
import Foundation
import NetOps
import NetOpsNIO
import TestSupport
import Testing

/// Proxies: a proxy variable NetOps cannot use fails the request instead of sending it directly
/// without a word; `NO_PROXY` matches bracketed IPv6 addresses and names with a trailing dot;
/// a caller's `Proxy-Authorization` never reaches the origin; a dump of a configuration never
/// prints a proxy password or a client secret.
@Suite("Security: proxies", .timeLimit(.minutes(2)))
struct ProxySecurityTests {
    /// `https://` and `socks4://` proxies are read as unusable (`isValid` false), and a request
    /// whose URL they would carry fails, naming the variable's scheme, on both engines — where
    /// the NIO engine used to go direct while libcurl used the proxy.
    @Test(arguments: TestEngine.allCases)
    func aProxyVariableThatCannotBeUsedFailsTheRequest(_ engine: TestEngine) async throws {
        let origin = try await ScriptedHTTPServer.start { _ in .text("direct") }
        defer { Task { await origin.stop() } }
        for value in ["https://127.0.0.1:9", "socks4://127.0.0.1:9"] {
            let variables = EnvironmentProxies(["http_proxy": value])
            #expect(!variables.isValid)
            let operation = DTO.get(origin.url("/ok")).on(engine)
            operation.proxy = .environment(variables)
            _ = try? await operation.run()
            #expect(operation.state == .failedFinished, "\(value): sent directly")
            #expect(origin.requests.isEmpty, "\(value): the origin was reached directly")
        }
        let refusal = EnvironmentProxies(["https_proxy": "https://p.example:443"]).refusal(for: URL(string: "https://api.example.com/")!)
        #expect(refusal?.contains("https_proxy") == true, "\(String(describing: refusal))")
    }

    /// `NO_PROXY` entries `[::1]`, `::1` and `example.com.` (a trailing dot) match as curl
    /// matches them: `http://[::1]:8080/` and `http://api.example.com./` go direct.
    @Test func noProxyMatchesBracketedIPv6AndTrailingDots() throws {
        let proxy = "http://127.0.0.1:3128"
        for exclusion in ["[::1]", "::1", "[::1]:8080"] {
            let variables = EnvironmentProxies(["http_proxy": proxy, "no_proxy": exclusion])
            #expect(variables.proxy(for: URL(string: "http://[::1]:8080/x")!) == nil, "\(exclusion)")
            #expect(variables.proxy(for: URL(string: "http://[::2]:8080/x")!) != nil, "\(exclusion)")
        }
        for (exclusion, host) in [("example.com.", "api.example.com"), ("example.com", "api.example.com."), (".example.com.", "example.com.")] {
            let variables = EnvironmentProxies(["http_proxy": proxy, "no_proxy": exclusion])
            #expect(variables.proxy(for: URL(string: "http://\(host)/")!) == nil, "\(exclusion) against \(host)")
            #expect(variables.proxy(for: URL(string: "http://example.org/")!) != nil)
        }
    }

    /// A `Proxy-Authorization` header a caller sets is for a proxy, which NetOps authenticates to
    /// itself (`ProxySettings.Credentials`): it never reaches the origin, directly or through a
    /// tunnel.
    @Test(.requires(.tinyproxy), arguments: TestEngine.allCases)
    func aCallersProxyAuthorizationNeverReachesTheOrigin(_ engine: TestEngine) async throws {
        let origin = try await ScriptedHTTPServer.start { _ in .text("ok") }
        defer { Task { await origin.stop() } }
        let direct = DTO.get(origin.url("/direct"), headers: ["Proxy-Authorization": "Basic c2VjcmV0LXByb3h5"]).on(engine)
        try await direct.run()
        var seen = origin.requests(to: "/direct")
        if engine == .nio {
            let proxy = try ProxyServer.tinyproxy()
            defer { proxy.stop() }
            let tunnelled = DTO.get(origin.url("/tunnelled"), headers: ["Proxy-Authorization": "Basic c2VjcmV0LXByb3h5"]).on(engine)
            tunnelled.proxy = .through(.http(host: "127.0.0.1", port: proxy.port))
            try await tunnelled.run()
            seen += origin.requests(to: "/tunnelled")
            #expect(origin.requests(to: "/tunnelled").count == 1)
        }
        #expect(!seen.isEmpty)
        for request in seen {
            #expect(request.value(of: "Proxy-Authorization") == nil, "\(request.target) carried the caller's Proxy-Authorization")
        }
    }

    /// `dump()` and `String(reflecting:)` of proxy credentials, of the OAuth authenticators and of
    /// configurations holding them print no password and no client secret.
    @Test func aDumpPrintsNoPasswordOrClientSecret() {
        let credentials = ProxySettings.Credentials(username: "svc", password: "proxy-PASSWORD-1")
        var engine = NIOEngineConfiguration()
        engine.proxy = .through(.http(host: "proxy.internal", port: 3128, credentials: credentials))
        let clientCredentials = OAuthClientCredentialsAuthenticator(
            tokenURL: URL(string: "https://auth.example.com/token")!, clientID: "c", clientSecret: "client-SECRET-2")
        let refreshGrant = OAuthRefreshTokenAuthenticator(
            tokenURL: URL(string: "https://auth.example.com/token")!, clientID: "c", clientSecret: "client-SECRET-3")
        let values: [Any] = [
            credentials, engine, clientCredentials, refreshGrant, ProxyChoice.through(.http(host: "p", port: 1, credentials: credentials)),
        ]
        for value in values {
            var dumped = ""
            dump(value, to: &dumped)
            for secret in ["proxy-PASSWORD-1", "client-SECRET-2", "client-SECRET-3"] {
                #expect(!dumped.contains(secret), "dump shows \(secret): \(dumped)")
                #expect(!String(reflecting: value).contains(secret))
            }
        }
    }
}
