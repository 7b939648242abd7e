import Foundation
import NIOCore
import NIOPosix
import NetOpsNIO
import TestSupport
import Testing

@testable import NetOps

/// Requests through real proxies: tinyproxy tunnels with `CONNECT` (with and without
/// credentials, and refusing a port), microsocks speaks SOCKS5. The proxy's credentials go to the
/// proxy alone and the API's token travels inside the tunnel; the URLSession engine refuses what
/// FoundationNetworking cannot do.
/// One test at a time, and never beside the tests that time things (the gate held exclusively):
/// each starts a proxy (and one an nginx).
@Suite(.serialized, .processGate(.exclusive, minutes: 2))
struct ProxyTransportTests {
    struct Echo: Decodable {
        let headers: [String: String]
    }

    static let token = "Bearer token-\(UUID().uuidString)"

    /// A NIO session of the test's own that goes through `proxy`, shut down after `body`.
    private func withSession(proxy: ProxyChoice, _ body: (NetworkSession) async throws -> Void) async throws {
        var configuration = TestEngine.nioConfiguration
        configuration.proxy = proxy
        try await withNIOSession(configuration, body)
    }

    /// A GET of DemoServer's echo with the API's token, finished.
    private func echo(in session: NetworkSession, proxy: ProxyChoice? = nil) async throws -> DTO {
        let operation = DTO.get(try await TestServer.url("echo"), headers: ["Authorization": Self.token]).on(session)
        operation.proxy = proxy
        _ = try? await operation.run()
        return operation
    }

    @Test(.requires(.tinyproxy)) func aTunnelCarriesTheTokenPastTheProxy() async throws {
        let proxy = try ProxyServer.tinyproxy()
        defer { proxy.stop() }
        try await withSession(proxy: .through(.http(host: "127.0.0.1", port: proxy.port))) { session in
            let operation = try await echo(in: session)
            #expect(operation.error == nil, "\(String(describing: operation.error))")
            let echo = try operation.decode(Echo.self)
            #expect(echo.headers["authorization"] == Self.token)
            #expect(echo.headers["proxy-authorization"] == nil)
            let server = try await TestServer.get()
            #expect(proxy.requests() == ["CONNECT 127.0.0.1:\(server.port) HTTP/1.1"], "\(proxy.requests())")
            #expect(!proxy.log().contains(Self.token), "the proxy logged the token")
        }
    }

    @Test(.requires(.tinyproxy)) func credentialsGoToTheProxyOnly() async throws {
        let password = "s3cret-\(UUID().uuidString.prefix(8))"
        let proxy = try ProxyServer.tinyproxy(credentials: ("svc", password))
        defer { proxy.stop() }
        let good = ProxySettings.http(host: "127.0.0.1", port: proxy.port, credentials: .init(username: "svc", password: password))
        #expect(!good.description.contains(password))
        try await withSession(proxy: .through(good)) { session in
            let operation = try await echo(in: session)
            #expect(operation.error == nil, "\(String(describing: operation.error))")
            #expect(try operation.decode(Echo.self).headers["proxy-authorization"] == nil)
        }
        let wrongPassword = "not-it-\(UUID().uuidString.prefix(8))"
        let wrong = ProxySettings.http(host: "127.0.0.1", port: proxy.port, credentials: .init(username: "svc", password: wrongPassword))
        try await withSession(proxy: .through(wrong)) { session in
            let operation = try await echo(in: session)
            guard case let .cannotConnect(reason)? = operation.error?.kind else {
                Issue.record("\(String(describing: operation.error))")
                return
            }
            // tinyproxy refuses wrong credentials with a status AsyncHTTPClient calls an invalid
            // proxy response (a 407 is `proxyAuthenticationRequired`).
            #expect(reason.contains("proxy"), "\(reason)")
            #expect(!reason.contains(wrongPassword))
        }
    }

    @Test(.requires(.tinyproxy)) func aProxyThatRefusesTheTunnelFailsTheOperation() async throws {
        let proxy = try ProxyServer.tinyproxy(connectPorts: [443])
        defer { proxy.stop() }
        try await withSession(proxy: .through(.http(host: "127.0.0.1", port: proxy.port))) { session in
            let operation = try await echo(in: session)
            guard case .cannotConnect? = operation.error?.kind else {
                Issue.record("\(String(describing: operation.error))")
                return
            }
        }
    }

    /// A "proxy" that accepts the connection and closes it before answering `CONNECT`.
    @Test func aProxyThatClosesMidHandshakeFailsTheOperation() async throws {
        let closer = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in channel.close() }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(closer.localAddress?.port)
        try await withSession(proxy: .through(.http(host: "127.0.0.1", port: port))) { session in
            let operation = try await echo(in: session)
            // AsyncHTTPClient reports the close as `remoteConnectionClosed`: a lost connection.
            switch operation.error?.kind {
            case .connectionLost?, .cannotConnect?: break
            default: Issue.record("\(String(describing: operation.error))")
            }
        }
        try await closer.close()
    }

    @Test(.requires(.microsocks)) func socks5CarriesTheRequest() async throws {
        let proxy = try ProxyServer.socks5()
        defer { proxy.stop() }
        try await withSession(proxy: .through(.socks5(host: "127.0.0.1", port: proxy.port))) { session in
            let operation = try await echo(in: session)
            #expect(operation.error == nil, "\(String(describing: operation.error))")
            #expect(try operation.decode(Echo.self).headers["authorization"] == Self.token)
        }
        // The proxy gone: no connection.
        proxy.stop()
        try await withSession(proxy: .through(.socks5(host: "127.0.0.1", port: proxy.port))) { session in
            let operation = try await echo(in: session)
            guard case .cannotConnect? = operation.error?.kind else {
                Issue.record("\(String(describing: operation.error))")
                return
            }
        }
    }

    @Test(.requires(.tinyproxy, .nginx, .openssl)) func httpsGoesThroughTheTunnel() async throws {
        let proxy = try ProxyServer.tinyproxy()
        defer { proxy.stop() }
        try await withTLSNginx { files, nginx in
            try await withSession(proxy: .through(.http(host: "127.0.0.1", port: proxy.port))) { session in
                let operation = DTO.get(URL(string: "protocol", relativeTo: nginx.http2)!.absoluteURL).on(session)
                operation.tlsSettings = try TLSSettings(trustRoots: .only(.file(files.caCertificate.path)))
                _ = try? await operation.run()
                #expect(String(decoding: operation.receivedData, as: UTF8.self) == "HTTP/2.0", "\(String(describing: operation.error))")
                #expect(proxy.requests() == ["CONNECT 127.0.0.1:\(nginx.http2.port ?? 0) HTTP/1.1"], "\(proxy.requests())")
            }
        }
    }

    /// `.environment` on an operation, with variables of the test's own: the proxy they name,
    /// and none for a host `no_proxy` lists.
    @Test(.requires(.tinyproxy)) func theEnvironmentsVariablesChooseTheProxyPerHost() async throws {
        let proxy = try ProxyServer.tinyproxy()
        defer { proxy.stop() }
        try await withSession(proxy: .direct) { session in
            let through = EnvironmentProxies(["http_proxy": "http://127.0.0.1:\(proxy.port)"])
            let proxied = try await echo(in: session, proxy: .environment(through))
            #expect(proxied.error == nil, "\(String(describing: proxied.error))")
            #expect(proxy.requests().count == 1, "\(proxy.requests())")
            let excluded = EnvironmentProxies(["http_proxy": "http://127.0.0.1:\(proxy.port)", "no_proxy": "localhost,127.0.0.1"])
            let direct = try await echo(in: session, proxy: .environment(excluded))
            #expect(direct.error == nil, "\(String(describing: direct.error))")
            #expect(proxy.requests().count == 1, "a request went to the proxy: \(proxy.requests())")
        }
    }

    /// FoundationNetworking ignores `connectionProxyDictionary` on Linux: a proxy of its own is
    /// refused before anything is sent.
    @Test(.requires(.tinyproxy)) func theURLSessionEngineRefusesAProxyOfItsOwn() async throws {
        let proxy = try ProxyServer.tinyproxy()
        defer { proxy.stop() }
        let session = TestEngine.urlSession.makeSession()
        let operation = try await echo(in: session, proxy: .through(.http(host: "127.0.0.1", port: proxy.port)))
        guard case let .cannotConnect(reason)? = operation.error?.kind else {
            Issue.record("\(String(describing: operation.error))")
            return
        }
        #expect(reason.contains("NetworkSession.nio"), "\(reason)")
        #expect(proxy.requests().isEmpty, "\(proxy.requests())")
        // Variables that send the host through a proxy while this process's send it directly.
        let other = EnvironmentProxies(["http_proxy": "http://127.0.0.1:\(proxy.port)"])
        let mismatched = try await echo(in: session, proxy: .environment(other))
        #expect(mismatched.error?.description.contains("NetworkSession.nio") == true, "\(String(describing: mismatched.error))")
        // Direct, as this process's environment has it: what the engine does anyway.
        #expect(try await echo(in: session, proxy: .direct).error == nil)
    }
}
