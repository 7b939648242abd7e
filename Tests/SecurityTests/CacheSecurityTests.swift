import APILayer
import DemoServer
import Foundation
import NetOpsNIO
import TestSupport
import Testing
import Validator

@testable import NetOps
@testable import NetOpsHTTP

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
    @Test(.requires(.nginx, .openssl), arguments: TestEngine.allCases)
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
    @Test(.requires(.nginx, .openssl)) func aSessionsClientCertificateIsPartOfTheKey() async throws {
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
    @Test(.requires(.tinyproxy), arguments: TestEngine.allCases)
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

    /// A token placed in the query and a password in the URL's user info are never written to
    /// the folder (names or contents).
    @Test(arguments: TestEngine.allCases)
    func theFolderHoldsNoQueryTokenNorUserInfo(_ engine: TestEngine) async throws {
        try await Self.withFolder { folder in
            let cache = try HTTPCache(configuration: .init(directory: folder))
            let server = try await TestServer.get()
            let token = "T0ken\(UUID().uuidString.prefix(12))"
            let password = "Pa55\(UUID().uuidString.prefix(12))"
            var components = URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false)!
            components.user = "alice"
            components.password = password
            components.path = "/cacheable/\(UUID().uuidString)"
            components.query = "maxAge=600&access_token=\(token)"
            try await DTO.get(components.url!).use(cache).on(engine).run()
            cache.flush()
            #expect(cache.diskUsage.entries == 1)
            let names = (try FileManager.default.contentsOfDirectory(atPath: folder.path))
            #expect(!names.isEmpty)
            for name in names {
                let data = try Data(contentsOf: folder.appendingPathComponent(name))
                let text = String(decoding: data, as: UTF8.self) + name
                #expect(!text.contains(token), "\(name)")
                #expect(!text.contains(password), "\(name)")
                #expect(!text.contains("alice"), "\(name)")
            }
        }
    }

    /// A logout (`removeToken()`) leaves no answer of the account behind: not in memory, not in
    /// the folder.
    @Test(arguments: TestEngine.allCases)
    func aLogoutRemovesTheAccountsEntries(_ engine: TestEngine) async throws {
        try await Self.withFolder { folder in
            let server = try await TestServer.get()
            let cache = try HTTPCache(configuration: .init(directory: folder))
            let scope = APIScope(name: "cache-logout")
            scope.configure {
                $0.baseURL = server.baseURL
                $0.session = engine.session
                $0.cache = cache
            }
            let coordinator = scope.configureAuthentication(authenticator: ClosureAuthenticator { _ in Token(accessToken: "never") })
            try coordinator.updateToken(Token(accessToken: "at-\(UUID().uuidString)"))
            let (url, _) = try await Self.resource("maxAge=600&items=2")
            let call = DTO.get(url)
            scope.adopt(call)
            try await call.run()
            #expect(call.sentRequest?.value(forHTTPHeaderField: "Authorization")?.hasPrefix("Bearer at-") == true)
            cache.flush()
            #expect(cache.diskUsage.entries == 1)
            try coordinator.removeToken()
            cache.flush()
            #expect(cache.memoryUsage.entries == 0)
            #expect(cache.diskUsage.entries == 0)
            #expect(Self.entryFiles(in: folder).isEmpty)
        }
    }

    /// An entry that has sat in the folder for 30 days is not served after a restart: it is
    /// deleted when the folder is opened.
    @Test(arguments: TestEngine.allCases)
    func anOldEntryIsDeletedWhenTheFolderIsOpened(_ engine: TestEngine) async throws {
        try await Self.withFolder { folder in
            let (url, key) = try await Self.resource("maxAge=600&etag=1")
            let first = try HTTPCache(configuration: .init(directory: folder))
            try await DTO.get(url).use(first).on(engine).run()
            first.flush()
            let file = try #require(Self.entryFiles(in: folder).first)
            let month: TimeInterval = 30 * 86_400
            try Self.rewriteEntry(file) { header in
                for name in ["requestTime", "responseTime"] {
                    if let time = header[name] as? Double { header[name] = time - month }
                }
            }
            var times = [timespec(tv_sec: time(nil) - Int(month), tv_nsec: 0), timespec(tv_sec: time(nil) - Int(month), tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, file.path, &times, 0) == 0)
            let reopened = try HTTPCache(configuration: .init(directory: folder))
            reopened.flush()
            #expect(reopened.diskUsage.entries == 0)
            #expect(!FileManager.default.fileExists(atPath: file.path))
            let again = DTO.get(url).use(reopened).on(engine)
            try await again.run()
            #expect(try await Self.stats(key).conditional == 0, "the month-old entry was revalidated")
        }
    }

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

    /// A stored `ETag` with a control byte (or a bare CR that would start a field of its own)
    /// never goes out in a revalidation.
    @Test(arguments: TestEngine.allCases, ["\"a\u{01}b\"", "\"a\"\rX-Injected: 1"])
    func aStoredValidatorWithAControlByteNeverReachesTheWire(_ engine: TestEngine, etag: String) async throws {
        let server = try await RecordingHTTPServer.start { _ in
            "HTTP/1.1 200 OK\r\nCache-Control: max-age=0\r\nETag: \(etag)\r\nContent-Length: 2\r\n\r\nok"
        }
        let cache = try HTTPCache()
        for _ in 0..<2 { _ = try? await DTO.get(server.url(.ok)).use(cache).on(engine).run() }
        let requests = server.requests
        await server.stop()
        #expect(!requests.isEmpty)
        for request in requests {
            let fields = request.head.replacingOccurrences(of: "\r\n", with: "\n")
            #expect(!fields.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(request.head.debugDescription)")
            #expect(request.values(of: "X-Injected").isEmpty)
        }
    }

    /// A disk entry edited to hold a control byte or CR LF in its `ETag` is dropped when read:
    /// the request goes without a condition, and nothing is injected. (FoundationNetworking's
    /// `URLRequest` drops a value with CR LF by itself; one with another control byte it keeps.)
    @Test(arguments: TestEngine.allCases, ["\"v1\"\r\nX-Injected: 1", "\"v1\"\u{01}"])
    func anEditedDiskEntryWithAnInjectedValidatorIsDropped(_ engine: TestEngine, etag: String) async throws {
        try await Self.withFolder { folder in
            let (url, key) = try await Self.resource("maxAge=0&etag=1")
            let writer = try HTTPCache(configuration: .init(directory: folder))
            try await DTO.get(url).use(writer).on(engine).run()
            writer.flush()
            let file = try #require(Self.entryFiles(in: folder).first)
            try Self.rewriteEntry(file) { header in
                let fields = header["fields"] as? [[String: String]] ?? []
                header["fields"] = fields.map { field -> [String: String] in
                    field["name"]?.lowercased() == "etag" ? ["name": "ETag", "value": etag] : field
                }
            }
            let reader = try HTTPCache(configuration: .init(directory: folder))
            let operation = DTO.get(url).use(reader).on(engine)
            try await operation.run()
            #expect(operation.statusCode == 200)
            #expect(try await Self.stats(key) == Stats(served: 2, notModified: 0, conditional: 0))
        }
    }

    // MARK: What the key leaves out

    /// W3C `baggage` may carry a tenant or user: requests that differ in it never share an answer.
    @Test(arguments: TestEngine.allCases)
    func baggageIsPartOfTheKey(_ engine: TestEngine) async throws {
        let (url, key) = try await Self.resource("maxAge=600")
        let cache = try HTTPCache()
        for tenant in ["a", "b"] {
            try await DTO.get(url, headers: ["baggage": "tenant=\(tenant)"]).use(cache).on(engine).run()
        }
        #expect(try await Self.stats(key).served == 2)
    }

    /// A configuration that asks to leave a credential out of the key (`Authorization`, `Cookie`,
    /// an API key) does not get it: two tokens never share an answer.
    @Test(arguments: TestEngine.allCases)
    func aSecretHeaderIsNeverLeftOutOfTheKey(_ engine: TestEngine) async throws {
        let (url, key) = try await Self.resource("maxAge=600")
        let cache = try HTTPCache(configuration: .init(ignoredHeaders: ["Authorization", "cookie", "x-api-key", "traceparent"]))
        #expect(cache.configuration.ignoredHeaders == ["traceparent"])
        for token in ["a", "b"] {
            try await DTO.get(url, headers: ["Authorization": "Bearer \(token)"]).use(cache).on(engine).run()
        }
        #expect(try await Self.stats(key).served == 2)
    }

    // MARK: CPU and memory

    /// An entry file replaced by a FIFO does not block the thread that starts the request (it
    /// would wait in `open(2)` for a writer forever): the file is read elsewhere, refused, and
    /// the request goes to the network.
    @Test(arguments: TestEngine.allCases)
    func aDiskEntryThatIsAFIFONeverBlocksTheStartingThread(_ engine: TestEngine) async throws {
        try await Self.withFolder { folder in
            let (url, key) = try await Self.resource("maxAge=600")
            let writer = try HTTPCache(configuration: .init(directory: folder))
            try await DTO.get(url).use(writer).on(engine).run()
            writer.flush()
            let reader = try HTTPCache(configuration: .init(directory: folder))
            let file = try #require(Self.entryFiles(in: folder).first)
            try FileManager.default.removeItem(at: file)
            #expect(mkfifo(file.path, 0o600) == 0)
            let operation = DTO.get(url).use(reader).on(engine)
            let returned = Locked(false)
            Thread.detachNewThread {
                operation.start()
                returned.withLock { $0 = true }
            }
            let startReturned = await eventually(within: 30) { returned.withLock { $0 } }
            if !startReturned {
                // Let the blocked thread go: a writer that opens and closes the FIFO ends its read.
                let descriptor = open(file.path, O_WRONLY | O_NONBLOCK)
                if descriptor >= 0 { close(descriptor) }
            }
            #expect(startReturned, "start() waited for the FIFO")
            await operation.finished()
            #expect(operation.statusCode == 200)
            #expect(try await Self.stats(key).served == 2)
        }
    }

    /// The writer never falls more than its bound behind: with the folder stalled, writes past
    /// `maximumPendingBytes` are skipped (the entries stay in memory), not queued without end.
    @Test func theDiskWritersQueueIsBounded() async throws {
        try await Self.withFolder { folder in
            let skipped = Locked(0)
            let store = try DiskCacheStore(
                directory: folder, maximumBytes: 64 << 20, maximumFreshness: 60, maximumPendingBytes: 1 << 20,
                onWriteSkipped: { skipped.withLock { $0 += 1 } }, onWriteFailure: { _ in })
            store.writer.suspend()
            let now = Date()
            for index in 0..<64 {
                store.store(
                    CachedResponse(
                        url: "http://127.0.0.1/\(index)", partition: "p", status: 200, httpVersion: "HTTP/1.1", fields: [],
                        body: Data(count: 64 << 10), requestTime: now, responseTime: now, maximumFreshness: 60))
            }
            #expect(store.pendingBytes <= 1 << 20)
            #expect(skipped.withLock { $0 } > 40)
            store.writer.resume()
            store.flush()
            #expect(store.pendingBytes == 0)
            #expect(store.count == 64 - skipped.withLock { $0 })
        }
    }

    /// A `Date` or `Expires` in none of the three forms (`Date: x` on every answer) is read
    /// without a formatter and means no date; the two obsolete forms are read as the RFC says
    /// (a two-digit year more than 50 years ahead is in the past century).
    @Test func httpDatesInEveryFormAndGarbageAreReadByHand() {
        let november6 = Date(timeIntervalSince1970: 784_111_777)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == november6)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == november6)
        #expect(HTTPDate.parse("Sun Nov 16 08:49:37 1994") == november6.addingTimeInterval(10 * 86_400))
        let in2026 = Date(timeIntervalSince1970: 1_795_000_000)
        #expect(HTTPDate.parse("Tuesday, 01-Jan-80 00:00:00 GMT", now: in2026) == Date(timeIntervalSince1970: 315_532_800))
        #expect(HTTPDate.parse("Friday, 01-Jan-27 00:00:00 GMT", now: in2026) == Date(timeIntervalSince1970: 1_798_761_600))
        for garbage in [
            "x", "", "Sunday, 06-Nov-94 08:49:37 UTC", "Sun Nov  6 08:49:37", "Funday, 06-Nov-94 08:49:37 GMT", "Sun Nox  6 08:49:37 1994",
        ] {
            #expect(HTTPDate.parse(garbage) == nil, "\(garbage)")
        }
    }

    /// A model mapped from a stored body and kept with it for reuse counts in the memory bound.
    @Test(arguments: TestEngine.allCases)
    func aReusedModelCountsInTheMemoryBound(_ engine: TestEngine) async throws {
        struct Page: Decodable, Sendable {
            struct Issue: Decodable, Sendable {
                let id: Int
                let title: String
                let body: String?
            }
            let key: String
            let items: [Issue]
        }
        enum PageAPI: String, APIMethod {
            case page = "cacheable/{key}"
            var httpMethod: HTTPMethod { .get }
            var encoding: RequestEncoding { .query }
            var defaultParameters: Parameters { [:] }
            var validation: ValidationPolicy { .custom { _ in [] } }
            var tokenPlacement: TokenPlacement? { nil }
        }
        let server = try await TestServer.get()
        let cache = try HTTPCache()
        let scope = APIScope(name: "cache-models", configuration: .init(baseURL: server.baseURL, session: engine.session))
        scope.configure { $0.cache = cache }
        let key = UUID().uuidString
        let operation = APIManager.withDefaultAPI(scope) {
            APIManager.operation(PageAPI.page, properties: ["key": key, "maxAge": 600, "items": 40], as: Page.self)
        }
        let page = try await operation.run()
        #expect(page.items.count == 40)
        let body = operation.receivedData.count
        #expect(body > 10_000)
        #expect(cache.memoryUsage.bytes >= 2 * body, "\(cache.memoryUsage.bytes) bytes counted for a body of \(body)")
    }
}
