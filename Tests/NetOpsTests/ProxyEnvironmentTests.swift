import Foundation
import NetOps
import Testing

/// The environment's proxy variables, read as curl reads them.
struct ProxyEnvironmentTests {
    private let http = URL(string: "http://api.example.com/x")!
    private let https = URL(string: "https://api.example.com/x")!

    @Test func eachSchemeHasItsVariable() {
        let proxies = EnvironmentProxies(["http_proxy": "proxy:3128", "HTTPS_PROXY": "https://ignored"])
        #expect(proxies.proxy(for: http) == .http(host: "proxy", port: 3128))
        // A proxy URL of an unknown scheme is not a proxy, as curl has it.
        #expect(proxies.proxy(for: https) == nil)
        #expect(!proxies.isValid)
        let secure = EnvironmentProxies(["https_proxy": "http://user:p%40ss@proxy.internal:8080"])
        #expect(secure.proxy(for: https) == .http(host: "proxy.internal", port: 8080, credentials: .init(username: "user", password: "p@ss")))
        #expect(secure.proxy(for: http) == nil)
        #expect(!"\(secure.proxy(for: https)!)".contains("p@ss"))
    }

    /// httpoxy: a CGI server sets HTTP_PROXY from a request's `Proxy:` header, so curl reads only
    /// the lower-case name for http.
    @Test func upperCaseHTTPProxyIsIgnored() {
        let proxies = EnvironmentProxies(["HTTP_PROXY": "attacker:80"])
        #expect(proxies.proxy(for: http) == nil)
    }

    @Test func allProxyIsTheFallbackAndSocksIsKnown() {
        let proxies = EnvironmentProxies(["ALL_PROXY": "socks5h://gateway"])
        #expect(proxies.proxy(for: http) == .socks5(host: "gateway", port: 1080))
        #expect(proxies.proxy(for: https) == .socks5(host: "gateway", port: 1080))
    }

    @Test(arguments: [
        ("example.com", "api.example.com", true), (".example.com", "api.example.com", true), ("example.com", "example.com", true),
        ("example.com", "notexample.com", false), ("*", "anything.test", true), ("10.0.0.0/8", "10.1.2.3", true),
        ("10.0.0.0/8", "11.1.2.3", false), ("127.0.0.1", "127.0.0.1", true), ("fd00::/8", "[fd12::1]", true),
        ("internal:8080", "internal", true), ("EXAMPLE.com", "api.example.com", true),
    ])
    func noProxyMatchesAsCurlDoes(entry: String, host: String, excluded: Bool) {
        let proxies = EnvironmentProxies(["http_proxy": "proxy:3128", "no_proxy": "other.test, \(entry)"])
        let url = URL(string: "http://\(host)/")!
        #expect((proxies.proxy(for: url) == nil) == excluded)
    }

    @Test func choicesResolvePerURL() {
        let proxy = ProxySettings.http(host: "proxy", port: 3128)
        #expect(ProxyChoice.direct.proxy(for: http) == nil)
        #expect(ProxyChoice.through(proxy).proxy(for: http) == proxy)
        let environment = ProxyChoice.environment(EnvironmentProxies(["http_proxy": "proxy:3128", "NO_PROXY": "example.com"]))
        #expect(environment.proxy(for: http) == nil)
        #expect(environment.proxy(for: URL(string: "http://other.test/")!) == proxy)
    }
}
