import APILayer
import Configuration
import Foundation
import NetOps
import NetOpsHTTP
import NetOpsNIO
import TestSupport
import Testing

/// The OAuth token request carries the client secret or the refresh token: it runs as the API's
/// own calls do — on the scope's session and engine, with its TLS settings (private CA, client
/// certificate) and proxy — and never over cleartext to a host other than loopback unless the
/// code says so.
@Suite("Security: the token request", .timeLimit(.minutes(2)))
struct TokenRequestSecurityTests {
    /// A token endpoint that requires a client certificate (mutual TLS, RFC 8705): the scope's
    /// TLS settings reach the token request, which presents the certificate and trusts only the
    /// scope's CA. NIO only: the URLSession engine cannot carry a client certificate.
    @Test(.requires(.nginx, .openssl)) func theTokenRequestPresentsTheScopesClientCertificate() async throws {
        try await withTLSNginx { certificates, nginx in
            let session = TestEngine.nio.makeSession()
            defer { Task { try? await session.shutdownNIOEngine() } }
            let scope = APIScope(name: "mtls-token-\(UUID().uuidString.prefix(6))")
            let tls = try TLSSettings(
                trustRoots: .only(.file(certificates.caCertificate.path)),
                clientCertificate: .file(certificates.clientCertificate.path), clientKey: .file(certificates.clientKey.path))
            scope.configure {
                $0.baseURL = nginx.mutualTLS
                $0.session = session
                $0.tls = tls
            }
            scope.configureAuthentication(
                authenticator: OAuthClientCredentialsAuthenticator(
                    tokenURL: nginx.mutualTLS.appendingPathComponent("oauth/token"), clientID: "c", clientSecret: "s", timeout: 10))
            let call = DTO.get(nginx.mutualTLS.appendingPathComponent("protected"))
            scope.adopt(call)
            try await call.run()
            #expect(String(decoding: call.receivedData, as: UTF8.self) == #"{"ok":true}"#)
            #expect(nginx.accessLog().contains(#""POST /oauth/token HTTP/1.1" 200"#), "\(nginx.accessLog())")
        }
    }

    /// A service whose every call runs on the NIO engine, going direct, with proxy variables in
    /// its environment (a proxy that records what reaches it): its token request goes direct
    /// too, and no URLSession is made. Run in a process of its own (`apilayer engine-check`),
    /// whose environment the test chooses.
    @Test func aDirectNIOScopeKeepsTheTokenRequestOffTheEnvironmentsProxy() async throws {
        let proxy = try await RecordingHTTPServer.start()
        defer { Task { await proxy.stop() } }
        let (_, _, realm) = try await SecurityRealm.new()
        let server = try await TestServer.get()
        let proxyURL = "http://127.0.0.1:\(proxy.port)"
        let run = try await APILayerExecutable.run(
            ["engine-check", "--url", server.baseURL.absoluteString, "--realm", realm.absoluteString],
            environment: ["http_proxy": proxyURL, "https_proxy": proxyURL, "HTTPS_PROXY": proxyURL, "no_proxy": "", "NO_PROXY": ""])
        #expect(run.status == 0, "\(run.error)")
        let line = try #require(run.output.split(separator: "\n").last, "no output: \(run.error)")
        let report = try JSONDecoder().decode(EngineCheckReport.self, from: Data(line.utf8))
        #expect(report.succeeded == 4, "\(run.output)")
        #expect(report.urlSessionsMade == 0, "the token request made a URLSession")
        #expect(proxy.requests.isEmpty, "the proxy saw: \(proxy.requests.map(\.requestLine))")
    }

    struct EngineCheckReport: Decodable {
        let succeeded: Int
        let urlSessionsMade: Int
    }

    /// An `http://` token URL to a host other than loopback is refused before anything is sent;
    /// loopback is accepted (a sidecar, a test server), and so is any host the code opts in for.
    @Test func anHTTPTokenURLIsRefusedUnlessLoopbackOrOptedIn() async throws {
        let remote = try #require(URL(string: "http://apilayer-auth.invalid/oauth/token"))
        let clientCredentials = OAuthClientCredentialsAuthenticator(tokenURL: remote, clientID: "c", clientSecret: "secret-1")
        let refused = await #expect(throws: AuthenticationError.self) { try await clientCredentials.refresh(current: nil) }
        #expect(refused == .insecureTokenURL(host: "apilayer-auth.invalid"), "\(String(describing: refused))")
        let refreshGrant = OAuthRefreshTokenAuthenticator(tokenURL: remote)
        let refusedToo = await #expect(throws: AuthenticationError.self) {
            try await refreshGrant.refresh(current: Token(accessToken: "a", refreshToken: "rt-1"))
        }
        #expect(refusedToo == .insecureTokenURL(host: "apilayer-auth.invalid"))

        var optedIn = clientCredentials
        optedIn.allowsInsecureHTTP = true
        let unreachable = await #expect(throws: AuthenticationError.self) { try await optedIn.refresh(current: nil) }
        guard case .transport? = unreachable else {
            Issue.record("the opted-in request was not sent: \(String(describing: unreachable))")
            return
        }

        let server = try await ScriptedHTTPServer.start { _ in .json(#"{"access_token":"loopback-token"}"#) }
        defer { Task { await server.stop() } }
        for host in ["127.0.0.1", "localhost"] {
            let url = try #require(URL(string: "http://\(host):\(server.port)/oauth/token"))
            let token = try await OAuthClientCredentialsAuthenticator(tokenURL: url, clientID: "c", clientSecret: "s").refresh(current: nil)
            #expect(token.accessToken == "loopback-token")
        }
    }

    /// The configuration readers refuse such a URL too, naming the key, unless the code opts in.
    @Test func theConfigReaderRefusesAnHTTPTokenURL() throws {
        func config(_ url: String) -> ConfigReader {
            ConfigReader(
                provider: InMemoryProvider(values: [
                    "auth.tokenURL": ConfigValue(.string(url), isSecret: false),
                    "auth.clientID": "c", "auth.clientSecret": ConfigValue(.string("secret-2"), isSecret: true),
                ])
            ).scoped(to: "auth")
        }
        for read in [
            { (reader: ConfigReader) in _ = try OAuthClientCredentialsAuthenticator(configReader: reader) },
            { (reader: ConfigReader) in _ = try OAuthRefreshTokenAuthenticator(configReader: reader) },
        ] {
            let error = #expect(throws: ConfigurationError.self) { try read(config("http://auth.example.com/token")) }
            #expect(error?.key == "auth.tokenURL", "\(String(describing: error))")
            #expect(error.map { "\($0)" }?.contains("secret-2") == false)
            try read(config("http://127.0.0.1:9/token"))
            try read(config("https://auth.example.com/token"))
        }
        let optedIn = try OAuthClientCredentialsAuthenticator(configReader: config("http://auth.example.com/token"), allowsInsecureHTTP: true)
        #expect(optedIn.allowsInsecureHTTP)
        _ = try OAuthRefreshTokenAuthenticator(configReader: config("http://auth.example.com/token"), allowsInsecureHTTP: true)
    }
}
