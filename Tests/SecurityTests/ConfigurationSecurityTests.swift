import APILayer
import Configuration
import Foundation
import Logging
import NetOps
import NetOpsHTTP
import NetOpsNIO
import Templater
import TestSupport
import Testing
import Validator

#if canImport(Glibc)
import Glibc
#endif

/// A method answered from its template in stub mode.
private enum StubbedAPI: String, APIMethod {
    case status

    var path: String { rawValue }
    var httpMethod: HTTPMethod { .get }
    var encoding: RequestEncoding { .query }
    var defaultParameters: Parameters { [:] }
    var validation: ValidationPolicy { .custom { _ in [] } }

    static let scope = APIScope(name: "stubbed-\(UUID().uuidString.prefix(6))")
    static var api: APIScope { scope }
}

/// What a configuration value alone can no longer do: send a token over cleartext or over TLS
/// that verifies nothing (or TLS 1.0) to a host other than loopback, read a secret or a key from
/// a file others may read, or turn a service's answers into fixtures without a word.
@Suite("Security: configuration", .timeLimit(.minutes(2)))
struct ConfigurationSecurityTests {
    /// A reader of `values` under the API `api`.
    static func reader(_ values: [AbsoluteConfigKey: ConfigValue], scopedTo api: String = "api") -> ConfigReader {
        ConfigReader(provider: InMemoryProvider(values: values)).scoped(to: ConfigKey(api))
    }

    /// A scope on `baseURL` read from `values`, with a token to place; the error of one adopted
    /// GET of `path` (nil when it succeeded).
    static func call(
        _ engine: TestEngine, baseURL: String, values: [AbsoluteConfigKey: ConfigValue] = [:], path: String = "json",
        adjust: (inout APIScope.Configuration) -> Void = { _ in }
    ) async throws -> NetOpsError? {
        var all = values
        all["api.baseURL"] = ConfigValue(.string(baseURL), isSecret: false)
        let scope = APIScope(name: "config-sec-\(UUID().uuidString.prefix(6))")
        try scope.configure(from: reader(all))
        scope.configure {
            $0.session = engine.makeSession()
            adjust(&$0)
        }
        scope.configureAuthentication(
            authenticator: ClosureAuthenticator { _ in Token(accessToken: "tok-CONFIG-1") },
            store: InMemoryTokenStore(Token(accessToken: "tok-CONFIG-1")))
        let operation = DTO.get(try #require(scope.url(appending: path)))
        scope.adopt(operation)
        operation.totalTimeout = 10
        _ = try? await operation.run()
        return operation.error
    }

    /// Whether a call to the host that does not exist was sent: it failed, and not with the
    /// refusal made before sending. Usually the name does not resolve (`cannotConnect`); on a
    /// busy machine the resolver may answer after the call's deadline instead.
    static func wasAttempted(_ error: NetOpsError?) -> Bool {
        guard let error else { return false }
        if case .invalidRequest = error.kind { return false }
        return true
    }

    /// Verification off, or TLS 1.0 allowed, by one configuration value on a scope that carries a
    /// token to a host other than loopback: the call fails before anything is sent, naming the
    /// setting and the code-only opt-in. With the opt-in it is sent (and fails to connect to the
    /// host, which does not exist).
    @Test(arguments: TestEngine.allCases)
    func insecureTLSOnAScopeWithATokenIsRefused(_ engine: TestEngine) async throws {
        let base = "https://api.apilayer-config.invalid/"
        for values: [AbsoluteConfigKey: ConfigValue] in [["api.tls.insecureWithoutVerification": true], ["api.tls.minimumVersion": "tls10"]] {
            let refused = try await Self.call(engine, baseURL: base, values: values)
            guard case let .invalidRequest(reason)? = refused?.kind else {
                Issue.record("\(values): expected a refusal before sending, got \(String(describing: refused))")
                continue
            }
            #expect(reason.contains("allowsInsecureTransport"), "\(reason)")
            #expect(!reason.contains("tok-CONFIG-1"))
        }
        if engine == .nio {
            let optedIn = try await Self.call(engine, baseURL: base, values: ["api.tls.insecureWithoutVerification": true]) {
                $0.allowsInsecureTransport = true
            }
            #expect(Self.wasAttempted(optedIn), "opted in: expected an attempt, got \(String(describing: optedIn))")
        }
    }

    /// An `http://` base URL on a scope that carries a token: refused for a host other than
    /// loopback unless the code opts in; loopback (a sidecar, a test server) goes.
    @Test(arguments: TestEngine.allCases)
    func cleartextToAHostOtherThanLoopbackIsRefusedOnAScopeWithAToken(_ engine: TestEngine) async throws {
        let refused = try await Self.call(engine, baseURL: "http://api.apilayer-config.invalid/")
        guard case let .invalidRequest(reason)? = refused?.kind else {
            Issue.record("expected a refusal before sending, got \(String(describing: refused))")
            return
        }
        #expect(reason.contains("allowsInsecureTransport"), "\(reason)")
        let optedIn = try await Self.call(engine, baseURL: "http://api.apilayer-config.invalid/") { $0.allowsInsecureTransport = true }
        guard Self.wasAttempted(optedIn) else {
            Issue.record("opted in: expected an attempt, got \(String(describing: optedIn))")
            return
        }
        let server = try await ScriptedHTTPServer.start { _ in .json("{}") }
        defer { Task { await server.stop() } }
        for host in ["127.0.0.1", "localhost"] {
            let loopback = try await Self.call(engine, baseURL: "http://\(host):\(server.port)/")
            #expect(loopback == nil, "\(host): \(String(describing: loopback))")
        }
    }

    /// A client secret, a TLS client key, read from a file others may read, or from a file
    /// larger than such a file can be, is refused naming the key and the mode (never the content).
    @Test(.requires(.openssl)) func secretAndKeyFilesAreModeCheckedAndBounded() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("config-sec-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let secretFile = folder.appendingPathComponent("client-secret")
        try Data("client-SECRET-FILE".utf8).write(to: secretFile)
        func readSecret() throws {
            _ = try OAuthClientCredentialsAuthenticator(
                configReader: Self.reader([
                    "api.tokenURL": "https://auth.example.com/token", "api.clientID": "c",
                    "api.clientSecretFile": ConfigValue(.string(secretFile.path), isSecret: false),
                ]))
        }
        chmod(secretFile.path, 0o644)
        let open = #expect(throws: ConfigurationError.self) { try readSecret() }
        #expect(open?.key == "api.clientSecretFile")
        #expect(open.map { "\($0)" }?.contains("mode") == true, "\(String(describing: open))")
        #expect(open.map { "\($0)" }?.contains("client-SECRET-FILE") == false)
        chmod(secretFile.path, 0o600)
        try readSecret()
        try Data(repeating: 0x41, count: 2 << 20).write(to: secretFile)
        let large = #expect(throws: ConfigurationError.self) { try readSecret() }
        #expect(large.map { "\($0)" }?.contains("bytes") == true, "\(String(describing: large))")

        let certificates = try await TestCertificates.make(in: folder.appendingPathComponent("tls"))
        chmod(certificates.clientKey.path, 0o644)
        let key = #expect(throws: ConfigurationError.self) {
            _ = try TLSSettings(
                configReader: Self.reader([
                    "api.clientCertificateFile": ConfigValue(.string(certificates.clientCertificate.path), isSecret: false),
                    "api.clientKeyFile": ConfigValue(.string(certificates.clientKey.path), isSecret: false),
                ]))
        }
        #expect(key?.key == "api.clientKeyFile")
        #expect(key.map { "\($0)" }?.contains("mode") == true, "\(String(describing: key))")
        chmod(certificates.clientKey.path, 0o600)
        _ = try TLSSettings(clientCertificate: .file(certificates.clientCertificate.path), clientKey: .file(certificates.clientKey.path))
    }

    /// Stub mode read from configuration answers calls from templates: the scope says so, at
    /// warning level, naming the API, the first time it does.
    @Test func stubModeFromConfigurationIsLoud() async throws {
        let capture = LogCapture()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stub-sec-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let templates = TemplateStore(directory: folder)
        try templates.write(.object(["ok": .bool(true)]), for: "status")
        try StubbedAPI.scope.configure(from: Self.reader(["api.stubMode": "immediate", "api.baseURL": "https://api.example.com/"]))
        StubbedAPI.scope.configure {
            $0.templates = templates
            $0.logger = capture.logger(label: "stubbed")
        }
        _ = try await APIManager.call(StubbedAPI.status, as: [String: Bool].self)
        _ = try await APIManager.call(StubbedAPI.status, as: [String: Bool].self)
        let warnings = capture.messages(atLeast: .warning).filter { $0.contains("stub") }
        #expect(warnings.count == 1, "\(capture.text)")
        #expect(warnings.first?.contains(StubbedAPI.scope.name) == true)
    }
}
