import APILayer
import Configuration
import Foundation
import SampleTemplates
import Templater

/// What the gateway reads of its configuration: where it listens, where DemoServer is, how long
/// it drains on shutdown, and each API's scope and credentials.
///
/// Every value has a default that runs the gateway beside `apilayer serve --port 8080` on one
/// machine; see `Docs/service.md` for the keys. Read with `init(reading:)`.
public struct GatewayConfiguration: Sendable {
    /// The address the HTTP server binds (`http.host`).
    public var host: String
    /// The port it listens on (`http.port`; 0: the system picks one).
    public var port: Int
    /// How long calls in flight may go on after a graceful shutdown began (`shutdown.drainTimeout`, seconds).
    public var drainTimeout: Duration
    /// The repository whose issues `/overview/{user}` lists (`overview.owner`, `overview.repo`).
    public var repository: (owner: String, repo: String)
    /// How many issues `/overview/{user}` lists (`overview.issues`).
    public var issueCount: Int
    /// SampleAPI (`apis.sample.*`).
    public var sample: APISettings
    /// TrackerAPI (`apis.tracker.*`).
    public var tracker: APISettings

    /// One API's scope configuration (without session, metrics or logger: the gateway sets
    /// those) and the client credentials of its token endpoint.
    public struct APISettings: Sendable, CustomStringConvertible {
        /// The scope's configuration as read.
        public var scope: APIScope.Configuration
        /// Connections the API's session keeps per host (`connections`).
        public var connections: Int
        /// The OAuth 2.0 token endpoint (`tokenURL`).
        public var tokenURL: URL
        /// The client-credentials grant's client id (`clientID`).
        public var clientID: String
        /// The client's secret (`clientSecret`, read as a secret): never in a log line or a
        /// description.
        public var clientSecret: String

        /// The settings without the secret.
        public var description: String {
            "\(scope.baseURL?.absoluteString ?? "no base URL"), token from \(tokenURL.absoluteString) as \(clientID) (secret redacted)"
        }
    }

    /// Reads the gateway's configuration from `reader`.
    ///
    /// - Throws: `GatewayConfigurationError` for a URL that does not parse.
    public init(reading reader: ConfigReader) throws {
        host = reader.string(forKey: "http.host", default: "127.0.0.1")
        port = reader.int(forKey: "http.port", default: 8081)
        drainTimeout = .milliseconds(Int(reader.double(forKey: "shutdown.drainTimeout", default: 10) * 1000))
        repository = (reader.string(forKey: "overview.owner", default: "octo-org"), reader.string(forKey: "overview.repo", default: "hello-world"))
        issueCount = reader.int(forKey: "overview.issues", default: 5)
        let demo = try Self.url(reader.string(forKey: "demo.url", default: "http://127.0.0.1:8080/"), key: "demo.url")
        let realm = reader.string(forKey: "demo.realm", default: "demo")
        let tokenURL = demo.appendingPathComponent("realm/\(realm)/oauth/token")
        sample = try Self.apiSettings(
            reader.scoped(to: "apis.sample"), baseURL: demo.appendingPathComponent("api/\(realm)/method/", isDirectory: true),
            templates: SampleTemplates.directory, tokenURL: tokenURL)
        tracker = try Self.apiSettings(
            reader.scoped(to: "apis.tracker"), baseURL: demo.appendingPathComponent("rest/\(realm)/", isDirectory: true),
            templates: SampleTemplates.trackerDirectory, tokenURL: tokenURL)
    }

    /// One API's settings from `reader` (scoped to `apis.<name>`), each key defaulting to the
    /// value for DemoServer.
    ///
    /// The gateway's defaults (DemoServer's URL, the sample templates, a 30 s total timeout),
    /// then every scope key APILayer reads (`APIScope.Configuration.update(from:)`: `baseURL`,
    /// `totalTimeout`, `retry.*`, `rateLimit.*`, `tls.*`, `proxy.*`, … — Docs/configuration.md),
    /// which throws `ConfigurationError` naming the key of a value it cannot use.
    static func apiSettings(_ reader: ConfigReader, baseURL: URL, templates: URL, tokenURL: URL) throws -> APISettings {
        var scope = APIScope.Configuration(baseURL: baseURL)
        scope.templates = TemplateStore(directory: URL(fileURLWithPath: reader.string(forKey: "templates", default: templates.path)))
        scope.totalTimeout = 30
        try scope.update(from: reader)
        return APISettings(
            scope: scope,
            connections: reader.int(forKey: "connections", default: 64),
            tokenURL: try url(reader.string(forKey: "tokenURL", default: tokenURL.absoluteString), key: "tokenURL"),
            clientID: reader.string(forKey: "clientID", default: "demo-client"),
            // DemoServer's public demo credentials; a deployment sets APIS_<NAME>_CLIENT_SECRET.
            clientSecret: reader.string(forKey: "clientSecret", isSecret: true, default: "demo-secret"))
    }

    private static func url(_ text: String, key: String) throws -> URL {
        guard let url = URL(string: text), url.scheme != nil, url.host != nil else { throw GatewayConfigurationError(key: key, value: text) }
        return url
    }
}

/// A configuration value the gateway cannot use.
public struct GatewayConfigurationError: Error, CustomStringConvertible {
    /// The key whose value is wrong.
    public var key: String
    /// The value read.
    public var value: String

    /// One readable line.
    public var description: String { "configuration key \(key): '\(value)' is not an absolute URL" }
}
