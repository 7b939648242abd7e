import APILayer
import Configuration
import Foundation
import Logging
import NetOps
import NetOpsHTTP
import NetOpsNIO
import TestSupport
import Testing

/// A folder of the test's own under the system's temporary folder, removed by the caller.
private func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// A reader of `values` alone.
private func reader(_ values: [AbsoluteConfigKey: ConfigValue]) -> ConfigReader {
    ConfigReader(provider: InMemoryProvider(values: values))
}

/// A list value for an in-memory provider.
private func list(_ strings: [String]) -> ConfigValue { ConfigValue(.stringArray(strings), isSecret: false) }

/// The settings of an API scope, an authenticator and the NIO engine read from a `ConfigReader`:
/// from memory, the environment, JSON and YAML files and a folder of secret files; every bad
/// value refused with an error naming its key, and a secret never printed.
@Suite("Configuration from a ConfigReader", .timeLimit(.minutes(2)))
struct ConfigReaderTests {
    /// Every scope setting the reader can give, from an in-memory provider, under the API's name.
    @Test func aScopeReadsEverySettingFromMemory() throws {
        let config = reader([
            "tracker.baseURL": "https://tracker.example.com/v2/",
            "tracker.trustedOrigins": list(["https://uploads.example.com"]),
            "tracker.totalTimeout": 30,
            "tracker.maximumResponseBodyBytes": 1_048_576,
            "tracker.usesCookies": true,
            "tracker.allowsHTTP2": false,
            "tracker.stubMode": "delayed",
            "tracker.stubDelay": 0.5,
            "tracker.retry.maximumAttempts": 2,
            "tracker.retry.baseDelay": 0.1,
            "tracker.retry.retryableStatuses": ConfigValue(.intArray([503]), isSecret: false),
            "tracker.rateLimit.requestsPerInterval": 10,
            "tracker.rateLimit.maximumConcurrentRequests": 4,
            "tracker.circuitBreaker.failureThreshold": 3,
            "tracker.coalescing.enabled": true,
            "tracker.proxy.mode": "socks5",
            "tracker.proxy.host": "socks.internal",
        ])
        let configuration = try APIScope.Configuration(configReader: config.scoped(to: "tracker"))
        #expect(configuration.baseURL == URL(string: "https://tracker.example.com/v2/"))
        #expect(configuration.trustedOrigins == [URL(string: "https://uploads.example.com")!])
        #expect(configuration.totalTimeout == 30)
        #expect(configuration.maximumResponseBodyBytes == 1_048_576)
        #expect(configuration.usesCookies)
        #expect(!configuration.allowsHTTP2)
        #expect(configuration.stubMode == .delayed(0.5))
        #expect(configuration.retryPolicy == RetryPolicy(maximumAttempts: 2, baseDelay: 0.1, retryableStatuses: [503]))
        #expect(configuration.rateLimit == RateLimiter.Configuration(requestsPerInterval: 10, maximumConcurrentRequests: 4))
        #expect(configuration.circuitBreaker == CircuitBreaker.Configuration(failureThreshold: 3))
        #expect(configuration.coalescing == RequestCoalescer.Configuration())
        #expect(configuration.proxy == .through(.socks5(host: "socks.internal", port: 1080)))
        #expect(configuration.tls == nil)
    }

    /// A reader with none of the keys leaves every setting at its documented default; `update`
    /// changes only what its reader has.
    @Test func missingKeysKeepTheDefaults() throws {
        let configuration = try APIScope.Configuration(configReader: reader([:]).scoped(to: "tracker"))
        #expect(configuration.baseURL == nil)
        #expect(configuration.trustedOrigins.isEmpty)
        #expect(configuration.totalTimeout == APIScope.Configuration.defaultTotalTimeout)
        #expect(configuration.maximumResponseBodyBytes == BaseOperation.defaultMaximumResponseBodyBytes)
        #expect(configuration.retryPolicy == nil)
        #expect(configuration.rateLimit == RateLimiter.Configuration())
        #expect(configuration.circuitBreaker == nil && configuration.coalescing == nil)
        #expect(configuration.tls == nil && configuration.proxy == nil)
        #expect(configuration.stubMode == .off && !configuration.usesCookies && configuration.allowsHTTP2)

        var updated = APIScope.Configuration(baseURL: URL(string: "https://kept.example.com/"))
        updated.circuitBreaker = .init(failureThreshold: 9)
        try updated.update(from: reader(["totalTimeout": "none", "rateLimit.enabled": false]))
        #expect(updated.baseURL == URL(string: "https://kept.example.com/"))
        #expect(updated.circuitBreaker == .init(failureThreshold: 9))
        #expect(updated.totalTimeout == nil)
        #expect(updated.rateLimit == nil)

        let engine = try NIOEngineConfiguration(configReader: reader([:]))
        let standard = NIOEngineConfiguration()
        #expect(engine.maximumConnectionsPerHost == standard.maximumConnectionsPerHost)
        #expect(engine.connectTimeout == standard.connectTimeout && engine.idleConnectionTimeout == standard.idleConnectionTimeout)
        #expect(engine.proxy == .direct && engine.tls.isStandard && engine.maximumUsesPerConnection == nil)
    }

    /// Environment variables, as a deployment sets them (a dictionary: the process's own
    /// environment is never changed, tests run in parallel).
    @Test func aScopeAndTheEngineReadEnvironmentVariables() throws {
        let config = ConfigReader(
            provider: EnvironmentVariablesProvider(environmentVariables: [
                "TRACKER_BASE_URL": "https://tracker.example.com/",
                "TRACKER_TOTAL_TIMEOUT": "45.5",
                "TRACKER_MAXIMUM_RESPONSE_BYTES": "none",
                "TRACKER_RETRY_MAXIMUM_ATTEMPTS": "3",
                "TRACKER_RETRY_RETRYABLE_STATUSES": "429,503",
                "TRACKER_RATE_LIMIT_ENABLED": "false",
                "TRACKER_PROXY_MODE": "http",
                "TRACKER_PROXY_HOST": "proxy.internal",
                "TRACKER_PROXY_PORT": "3128",
                "TRACKER_PROXY_USERNAME": "svc",
                "TRACKER_PROXY_PASSWORD": "proxy-password-from-env",
                "NIO_MAXIMUM_CONNECTIONS_PER_HOST": "32",
                "NIO_CONNECT_TIMEOUT": "2",
                "NIO_MAXIMUM_USES_PER_CONNECTION": "100",
                "NIO_DNS_OVERRIDE": "api.example.com:127.0.0.1,v6.example.com:::1",
                "NIO_COMPLETION_DELIVERY": "eventLoop",
                "NIO_TLS_MINIMUM_VERSION": "tls13",
            ]))
        let scope = try APIScope.Configuration(configReader: config.scoped(to: "tracker"))
        #expect(scope.baseURL == URL(string: "https://tracker.example.com/"))
        #expect(scope.totalTimeout == 45.5)
        #expect(scope.maximumResponseBodyBytes == nil)
        #expect(scope.retryPolicy == RetryPolicy(maximumAttempts: 3, retryableStatuses: [429, 503]))
        #expect(scope.rateLimit == nil)
        let credentials = ProxySettings.Credentials(username: "svc", password: "proxy-password-from-env")
        #expect(scope.proxy == .through(.http(host: "proxy.internal", port: 3128, credentials: credentials)))
        #expect(!String(describing: scope.proxy as Any).contains("proxy-password-from-env"))

        let engine = try NIOEngineConfiguration(configReader: config.scoped(to: "nio"))
        #expect(engine.maximumConnectionsPerHost == 32)
        #expect(engine.connectTimeout == 2)
        #expect(engine.maximumUsesPerConnection == 100)
        #expect(engine.dnsOverride == ["api.example.com": "127.0.0.1", "v6.example.com": "::1"])
        #expect(engine.completionDelivery == .eventLoop)
        #expect(engine.tls.minimumVersion == .tls13)
    }

    /// A JSON file and a YAML file of the same settings give the same configuration.
    @Test(arguments: ["json", "yaml"])
    func aScopeReadsAFile(_ format: String) async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("service.\(format)")
        let text =
            format == "json"
            ? """
            {"tracker": {"baseURL": "https://tracker.example.com/", "totalTimeout": 15, "usesCookies": true,
              "trustedOrigins": ["https://uploads.example.com"],
              "circuitBreaker": {"failureThreshold": 2, "coolDown": 5}, "retry": {"enabled": false}},
             "nio": {"maximumConnectionsPerHost": 8, "followsRedirects": false, "proxy": {"mode": "direct"}}}
            """
            : """
            tracker:
              baseURL: https://tracker.example.com/
              totalTimeout: 15
              usesCookies: true
              trustedOrigins:
                - https://uploads.example.com
              circuitBreaker:
                failureThreshold: 2
                coolDown: 5
              retry:
                enabled: false
            nio:
              maximumConnectionsPerHost: 8
              followsRedirects: false
              proxy:
                mode: direct
            """
        try Data(text.utf8).write(to: file)
        let provider: any ConfigProvider =
            format == "json"
            ? try await FileProvider<JSONSnapshot>(filePath: .init(file.path))
            : try await FileProvider<YAMLSnapshot>(filePath: .init(file.path))
        let config = ConfigReader(provider: provider)
        let scope = try APIScope.Configuration(configReader: config.scoped(to: "tracker"))
        #expect(scope.baseURL == URL(string: "https://tracker.example.com/"))
        #expect(scope.totalTimeout == 15)
        #expect(scope.usesCookies)
        #expect(scope.trustedOrigins == [URL(string: "https://uploads.example.com")!])
        #expect(scope.circuitBreaker == CircuitBreaker.Configuration(failureThreshold: 2, coolDown: 5))
        #expect(scope.retryPolicy == RetryPolicy.none)
        let engine = try NIOEngineConfiguration(configReader: config.scoped(to: "nio"))
        #expect(engine.maximumConnectionsPerHost == 8)
        #expect(!engine.followsRedirects)
        #expect(engine.proxy == .direct)
    }

    /// The client secret from a folder of secret files (a mounted Kubernetes or Docker secret),
    /// the rest from memory; and from a file named by `clientSecretFile`.
    @Test func theClientSecretComesFromAFile() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let secrets = folder.appendingPathComponent("secrets")
        try FileManager.default.createDirectory(at: secrets, withIntermediateDirectories: true)
        try Data("folder-secret-7f3a\n".utf8).write(to: secrets.appendingPathComponent("tracker-auth-clientSecret"))
        let settings: [AbsoluteConfigKey: ConfigValue] = [
            "tracker.auth.tokenURL": "https://login.example.com/oauth/token", "tracker.auth.clientID": "svc",
        ]
        let config = ConfigReader(providers: [
            try await DirectoryFilesProvider(directoryPath: .init(secrets.path)), InMemoryProvider(values: settings),
        ])
        let authenticator = try OAuthClientCredentialsAuthenticator(configReader: config.scoped(to: "tracker").scoped(to: "auth"))
        #expect(authenticator.clientSecret == "folder-secret-7f3a")
        #expect(authenticator.clientID == "svc")
        #expect(authenticator.tokenURL == URL(string: "https://login.example.com/oauth/token"))
        #expect(!authenticator.description.contains("folder-secret-7f3a"))

        let file = folder.appendingPathComponent("client-secret")
        try Data("  file-secret-91c2\n".utf8).write(to: file)
        // A secret file others may read is refused (`SecretFile`).
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        var fromFile = settings
        fromFile["tracker.auth.clientSecretFile"] = ConfigValue(.string(file.path), isSecret: false)
        let refresh = try OAuthRefreshTokenAuthenticator(configReader: reader(fromFile).scoped(to: "tracker").scoped(to: "auth"))
        #expect(refresh.clientSecret == "file-secret-91c2")
        #expect(!refresh.description.contains("file-secret-91c2"))
    }

    /// A bad value: which key the error names and why.
    struct BadInput: Sendable, CustomTestStringConvertible {
        let name: String
        let values: [AbsoluteConfigKey: ConfigValue]
        let key: String
        let reason: ConfigurationError.Reason
        var testDescription: String { name }
    }

    static let badScopeInputs: [BadInput] = [
        .init(
            name: "a timeout that is not a number", values: ["tracker.totalTimeout": "soon"], key: "tracker.totalTimeout",
            reason: .wrongType(expected: "a number of seconds or none")),
        .init(
            name: "a negative timeout", values: ["tracker.totalTimeout": -1], key: "tracker.totalTimeout",
            reason: .outOfRange("more than 0 seconds")),
        .init(
            name: "a flag of the wrong type", values: ["tracker.allowsHTTP2": 3], key: "tracker.allowsHTTP2",
            reason: .wrongType(expected: "true or false")),
        .init(
            name: "a relative base URL", values: ["tracker.baseURL": "tracker/v2"], key: "tracker.baseURL",
            reason: .invalid("an absolute http or https URL")),
        .init(
            name: "no attempt at all", values: ["tracker.retry.maximumAttempts": 0], key: "tracker.retry.maximumAttempts",
            reason: .outOfRange("at least 1")),
        .init(
            name: "a status that is not one", values: ["tracker.retry.retryableStatuses": ConfigValue(.intArray([5003]), isSecret: false)],
            key: "tracker.retry.retryableStatuses", reason: .outOfRange("HTTP statuses, from 100 to 599")),
        .init(
            name: "a port past 65535", values: ["tracker.proxy.mode": "http", "tracker.proxy.host": "p", "tracker.proxy.port": 70_000],
            key: "tracker.proxy.port", reason: .outOfRange("from 1 to 65535")),
        .init(
            name: "an unknown proxy mode", values: ["tracker.proxy.mode": "pigeon"], key: "tracker.proxy.mode",
            reason: .invalid("one of direct, environment, http, socks5")),
        .init(
            name: "a proxy without its host", values: ["tracker.proxy.mode": "http", "tracker.proxy.port": 3128], key: "tracker.proxy.host",
            reason: .missing),
        .init(name: "a proxy host without a mode", values: ["tracker.proxy.host": "p"], key: "tracker.proxy.mode", reason: .missing),
        .init(
            name: "a password without its user",
            values: ["tracker.proxy.mode": "http", "tracker.proxy.host": "p", "tracker.proxy.port": 1, "tracker.proxy.password": "pw-6d1e"],
            key: "tracker.proxy.username", reason: .missing),
        .init(name: "a delayed stub without its delay", values: ["tracker.stubMode": "delayed"], key: "tracker.stubDelay", reason: .missing),
        .init(
            name: "a certificate without its key", values: ["tracker.tls.clientCertificateFile": "/nonexistent/client.pem"],
            key: "tracker.tls.clientKeyFile", reason: .missing),
        .init(
            name: "a trust roots file that is not there", values: ["tracker.tls.trustRootsFile": "/nonexistent/ca.pem"],
            key: "tracker.tls.trustRootsFile", reason: .unusableFile("TLS settings: /nonexistent/ca.pem: no such file")),
    ]

    /// Each bad value of a scope's settings: the error names the full key and what was expected.
    @Test(arguments: badScopeInputs)
    func aBadScopeValueIsRefusedNamingItsKey(_ input: BadInput) {
        #expect(throws: ConfigurationError(key: input.key, reason: input.reason)) {
            _ = try APIScope.Configuration(configReader: reader(input.values).scoped(to: "tracker"))
        }
        #expect(ConfigurationError(key: input.key, reason: input.reason).description.hasPrefix("configuration key \(input.key): "))
    }

    /// A value of the wrong type in an environment variable, read under the API's name.
    @Test func aBadEnvironmentVariableIsRefusedNamingItsKey() throws {
        let config = ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: ["NIO_CONNECT_TIMEOUT": "ten"]))
        #expect(throws: ConfigurationError(key: "nio.connectTimeout", reason: .wrongType(expected: "a number of seconds"))) {
            _ = try NIOEngineConfiguration(configReader: config.scoped(to: "nio"))
        }
        let dns = reader(["nio.dnsOverride": list(["no-address"])])
        #expect(throws: ConfigurationError(key: "nio.dnsOverride", reason: .invalid("a list of host:address entries"))) {
            _ = try NIOEngineConfiguration(configReader: dns.scoped(to: "nio"))
        }
    }

    /// An authenticator without its secret, or whose secret file cannot be read: the service
    /// refuses to start, naming the key.
    @Test func aMissingOrUnreadableSecretIsRefusedNamingItsKey() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let base: [AbsoluteConfigKey: ConfigValue] = ["auth.tokenURL": "https://login.example.com/token", "auth.clientID": "svc"]
        #expect(throws: ConfigurationError(key: "auth.clientSecret", reason: .missing)) {
            _ = try OAuthClientCredentialsAuthenticator(configReader: reader(base).scoped(to: "auth"))
        }
        for (path, why) in [(folder.path, "a folder, not a file"), (folder.appendingPathComponent("gone").path, "no such file")] {
            var values = base
            values["auth.clientSecretFile"] = ConfigValue(.string(path), isSecret: false)
            #expect(throws: ConfigurationError(key: "auth.clientSecretFile", reason: .unusableFile("\(why): \(path)"))) {
                _ = try OAuthClientCredentialsAuthenticator(configReader: reader(values).scoped(to: "auth"))
            }
        }
        #expect(throws: ConfigurationError(key: "auth.tokenURL", reason: .missing)) {
            _ = try OAuthRefreshTokenAuthenticator(configReader: reader([:]).scoped(to: "auth"))
        }
    }

    /// TLS files named by the configuration are read and checked when it is read; a key that
    /// does not belong to its certificate is refused by the NIO engine that builds the settings,
    /// naming the key's file.
    @Test(.requires(.openssl)) func tlsFilesAreReadAndChecked() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let certificates = try await TestCertificates.make(in: folder)
        var values: [AbsoluteConfigKey: ConfigValue] = [
            "tls.trustRootsFile": ConfigValue(.string(certificates.caCertificate.path), isSecret: false),
            "tls.trustsSystemRoots": false,
            "tls.clientCertificateFile": ConfigValue(.string(certificates.clientCertificate.path), isSecret: false),
            "tls.clientKeyFile": ConfigValue(.string(certificates.clientKey.path), isSecret: false),
            "tls.minimumVersion": "tls13",
        ]
        let tls = try #require(try APIScope.Configuration(configReader: reader(values)).tls)
        #expect(tls.trustRoots == .only(.file(certificates.caCertificate.path)))
        #expect(tls.clientCertificate == .file(certificates.clientCertificate.path))
        #expect(tls.minimumVersion == .tls13)

        values["tls.clientKeyFile"] = ConfigValue(.string(certificates.otherKey.path), isSecret: false)
        let mismatched = try #require(try APIScope.Configuration(configReader: reader(values)).tls)
        let expected = TLSSettingsError(
            source: certificates.otherKey.path, reason: .keyDoesNotMatchCertificate(certificate: certificates.clientCertificate.path))
        #expect(throws: expected) { try mismatched.nioBuild.configuration.get() }
        #expect(!expected.description.contains("PRIVATE KEY"))
    }

    /// A scope, its authenticator and its NIO session all read from one configuration call
    /// DemoServer: the base URL, client credentials and session are the configuration's. A
    /// response limit read later applies to the next call. The client secret never appears in a
    /// log line (the scope's, or swift-configuration's access log) or an error's description.
    @Test func aScopeReadFromConfigurationCallsDemoServer() async throws {
        let (server, realm, _) = try await TestServer.newRealm()
        let secret = "demo-secret"
        let log = LogCapture()
        let config = ConfigReader(
            provider: InMemoryProvider(values: [
                "tracker.baseURL": ConfigValue(.string(server.baseURL.absoluteString), isSecret: false),
                "tracker.totalTimeout": 20,
                "tracker.auth.tokenURL": ConfigValue(.string(server.tokenURL(realm: realm).absoluteString), isSecret: false),
                "tracker.auth.clientID": "demo-client",
                "tracker.auth.clientSecret": ConfigValue(.string(secret), isSecret: false),
                "nio.connectTimeout": 30,
                "nio.retriesConnectionEstablishment": false,
                "nio.proxy.mode": "direct",
            ]),
            accessReporter: AccessLogger(logger: log.logger(label: "config"), level: .info))
        var errors: [String] = []

        var engine = try NIOEngineConfiguration(configReader: config.scoped(to: "nio"))
        engine.logger = log.logger(label: "nio")
        try await withNIOSession(engine) { session in
            var configuration = try APIScope.Configuration(configReader: config.scoped(to: "tracker"))
            configuration.logger = log.logger(label: "tracker")
            configuration.session = session
            let scope = APIScope(name: "configured-\(realm)", configuration: configuration)
            let authenticator = try OAuthClientCredentialsAuthenticator(configReader: config.scoped(to: "tracker").scoped(to: "auth"))
            let coordinator = scope.configureAuthentication(authenticator: authenticator)
            errors.append(authenticator.description)
            errors.append(String(reflecting: authenticator))

            try await APIManager.withDefaultAPI(scope) {
                let granted = try await APIManager.call(ProtectedAPI.protected, properties: ["realm": realm], as: Granted.self)
                #expect(granted.ok)
            }
            #expect(coordinator.token != nil)
            #expect(server.tokenAuthority(realm: realm).snapshot.tokenRequests == 1)
            #expect(scope.configuration.totalTimeout == 20)

            try scope.configure(from: reader(["maximumResponseBytes": 4]))
            let limited = APIManager.withDefaultAPI(scope) {
                APIManager.operation(ProtectedAPI.protected, properties: ["realm": realm], as: Granted.self)
            }
            _ = try? await limited.run()
            guard case let .failure(error) = limited.result, case let .transport(cause) = error.stage,
                case let .transport(code, _) = cause.kind
            else {
                Issue.record("expected the response limit to fail the call, got \(String(describing: limited.result))")
                return
            }
            #expect(code == BaseOperation.responseBodyTooLargeCode)
            errors.append(error.description)
        }

        // Bad input around the secret: each error names a key, none carries the secret.
        let secretBad: [[AbsoluteConfigKey: ConfigValue]] = [
            ["clientID": "demo-client", "clientSecret": ConfigValue(.string(secret), isSecret: false)],
            ["tokenURL": "not a url", "clientID": "demo-client", "clientSecret": ConfigValue(.string(secret), isSecret: false)],
            ["tokenURL": "https://x.example/t", "clientSecret": ConfigValue(.string(secret), isSecret: false)],
            ["tokenURL": "https://x.example/t", "clientID": "c", "clientSecret": ConfigValue(.int(7), isSecret: false)],
        ]
        for values in secretBad {
            let bad = ConfigReader(provider: InMemoryProvider(values: values), accessReporter: AccessLogger(logger: log.logger(), level: .info))
            do {
                _ = try OAuthClientCredentialsAuthenticator(configReader: bad)
                Issue.record("bad authenticator settings were accepted")
            } catch {
                errors.append(String(describing: error))
                errors.append(String(reflecting: error))
            }
        }
        let proxyBad = reader([
            "proxy.mode": "socks5", "proxy.host": "h", "proxy.password": ConfigValue(.string(secret), isSecret: false),
        ])
        #expect(throws: ConfigurationError(key: "proxy.password", reason: .invalid("absent: a SOCKS5 proxy takes no credentials"))) {
            _ = try ProxyChoice(configReader: proxyBad.scoped(to: "proxy"))
        }

        #expect(log.count > 0)
        #expect(log.text.contains("tracker.auth.clientSecret"), "the access log names the key it read")
        #expect(log.text.contains("<REDACTED>"), "and hides its value")
        #expect(!log.text.contains(secret), "no log line carries the client secret")
        for text in errors {
            #expect(!text.contains(secret), "\(text)")
        }
    }
}
