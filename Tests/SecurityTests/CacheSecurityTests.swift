import APILayer
import DemoServer
import Foundation
import NetOps
import NetOpsNIO
import TestSupport
import Testing
import Validator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What the HTTP cache shares and keeps: an answer reaches only a request made with the same
/// credentials and the same transport identity (client certificate, trust, proxy, engine), the
/// folder holds no credential and nothing of a logged-out account, and a stored value that is
/// not a valid field never reaches the wire.
@Suite("Security: HTTP cache", .timeLimit(.minutes(2)))
struct CacheSecurityTests {
    struct Stats: Decodable, Equatable {
        var served: Int
        var notModified: Int
        var conditional: Int
    }

    /// DemoServer's `/cacheable/{key}` with `query`, a key of its own.
    static func resource(_ query: String) async throws -> (url: URL, key: String) {
        let key = UUID().uuidString
        return (try await TestServer.url("cacheable/\(key)?\(query)"), key)
    }

    /// What DemoServer served for `key` so far.
    static func stats(_ key: String) async throws -> Stats {
        let operation = DTO.get(try await TestServer.url("cacheable-stats/\(key)"))
        try await operation.run()
        return try JSONDecoder().decode(Stats.self, from: operation.receivedData)
    }

    /// Runs `body` with a fresh folder (mode 0700) under the temporary folder, removed afterwards.
    static func withFolder(_ body: (URL) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cache-security-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(folder)
    }

    /// The cache's entry files in `folder`.
    static func entryFiles(in folder: URL) -> [URL] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".entry") }.map { folder.appendingPathComponent($0) }
    }

    // MARK: Transport identities

    /// Two tenants of a mutual-TLS API, one cache: the second tenant's request is never answered
    /// with the first tenant's entry. The URLSession engine can present no client certificate (and
    /// trusts no private CA): its request is another identity again, and is not answered from the
    /// entry either.
    @Test(arguments: TestEngine.allCases)
    func aClientCertificateIsPartOfTheKey(_ engine: TestEngine) async throws {
        try await withTLSNginx { certificates, nginx in
            let url = URL(string: "whoami", relativeTo: nginx.mutualTLS)!.absoluteURL
            let trust = TLSSettings.TrustRoots.only(.file(certificates.caCertificate.path))
            let tenantA = try TLSSettings(
                trustRoots: trust, clientCertificate: .file(certificates.clientCertificate.path), clientKey: .file(certificates.clientKey.path))
            let tenantB = try TLSSettings(
                trustRoots: trust, clientCertificate: .file(certificates.otherClientCertificate.path),
                clientKey: .file(certificates.otherClientKey.path))
            let cache = try HTTPCache()
            let first = DTO.get(url).use(cache).on(TestEngine.nio)
            first.tlsSettings = tenantA
            try await first.run()
            #expect(String(decoding: first.receivedData, as: UTF8.self) == "CN=apilayer-test-client")
            let second = DTO.get(url).use(cache).on(engine)
            if engine == .nio { second.tlsSettings = tenantB }
            _ = try? await second.run()
            #expect(cache.statistics.hits == 0)
            #expect(second.receivedData != first.receivedData)
            if engine == .nio {
                #expect(String(decoding: second.receivedData, as: UTF8.self) == "CN=apilayer-test-client-b")
                #expect(nginx.accessLog().components(separatedBy: "GET /whoami").count - 1 == 2, "\(nginx.accessLog())")
            }
        }
    }

    /// Sessions whose engines present different client certificates (`NIOEngineConfiguration.tls`)
    /// sharing one cache: each gets its own answer. NIO only: a URLSession session has no TLS
    /// settings of its own.
    @Test func aSessionsClientCertificateIsPartOfTheKey() async throws {
        try await withTLSNginx { certificates, nginx in
            let url = URL(string: "whoami", relativeTo: nginx.mutualTLS)!.absoluteURL
            let trust = TLSSettings.TrustRoots.only(.file(certificates.caCertificate.path))
            var first = TestEngine.nioConfiguration
            first.tls = try TLSSettings(
                trustRoots: trust, clientCertificate: .file(certificates.clientCertificate.path), clientKey: .file(certificates.clientKey.path))
            var second = TestEngine.nioConfiguration
            second.tls = try TLSSettings(
                trustRoots: trust, clientCertificate: .file(certificates.otherClientCertificate.path),
                clientKey: .file(certificates.otherClientKey.path))
            let cache = try HTTPCache()
            var bodies: [String] = []
            for configuration in [first, second] {
                try await withNIOSession(configuration) { session in
                    let operation = DTO.get(url).use(cache).on(session)
                    try await operation.run()
                    bodies.append(String(decoding: operation.receivedData, as: UTF8.self))
                }
            }
            #expect(bodies == ["CN=apilayer-test-client", "CN=apilayer-test-client-b"])
            #expect(cache.statistics.hits == 0)
        }
    }

    /// A request through a proxy (NIO) or on another engine (URLSession) is not answered with the
    /// entry a direct NIO request stored.
    @Test(arguments: TestEngine.allCases)
    func aProxyOrAnotherEngineIsPartOfTheKey(_ engine: TestEngine) async throws {
        let (url, key) = try await Self.resource("maxAge=600")
        let proxy = try ProxyServer.tinyproxy()
        defer { proxy.stop() }
        let cache = try HTTPCache()
        try await DTO.get(url).use(cache).on(TestEngine.nio).run()
        let second = DTO.get(url).use(cache).on(engine)
        if engine == .nio { second.proxy = .through(.http(host: "127.0.0.1", port: proxy.port)) }
        try await second.run()
        #expect(cache.statistics.hits == 0)
        #expect(try await Self.stats(key).served == 2)
        if engine == .nio { #expect(proxy.requests().count == 1, "\(proxy.requests())") }
    }

    // MARK: What the folder holds

    /// Rewrites the JSON header of a disk entry (magic line, 4-byte big-endian length, JSON,
    /// body) through `change`.
    static func rewriteEntry(_ file: URL, _ change: (inout [String: Any]) -> Void) throws {
        let data = try Data(contentsOf: file)
        let newline = try #require(data.firstIndex(of: UInt8(ascii: "\n")))
        let magic = data[...newline]
        let start = newline + 5
        let length = data[(newline + 1)..<start].reduce(0) { ($0 << 8) | Int($1) }
        var header = try #require(try JSONSerialization.jsonObject(with: data[start..<(start + length)]) as? [String: Any])
        change(&header)
        let encoded = try JSONSerialization.data(withJSONObject: header)
        var rewritten = Data(magic)
        var count = UInt32(encoded.count).bigEndian
        withUnsafeBytes(of: &count) { rewritten.append(contentsOf: $0) }
        rewritten.append(encoded)
        rewritten.append(data[(start + length)...])
        try rewritten.write(to: file)
    }

    // MARK: Validators

    // MARK: What the key leaves out

    // MARK: CPU and memory

}
