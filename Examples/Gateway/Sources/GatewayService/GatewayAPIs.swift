import APILayer
import Foundation
import Logging
import Metrics
import NetOps
import NetOpsNIO
import SampleAPI

/// The two APIs the gateway calls, each in a scope of its own with its own SwiftNIO session and
/// token, and the `APIService` that owns them and stops them on shutdown.
public struct GatewayAPIs: Sendable {
    /// SampleAPI's scope: the default API of the gateway's requests.
    public let sample: APIScope
    /// TrackerAPI's scope.
    public let tracker: APIScope
    /// The service that drains both on graceful shutdown.
    public let service: APIService
    /// How every call of the gateway ended.
    public let ledger = CallLedger()
    /// The repository whose issues an overview lists.
    public let repository: (owner: String, repo: String)
    /// How many issues an overview lists.
    public let issueCount: Int

    /// The scopes `configuration` describes, their metrics going to `metricsFactory` (nil: the
    /// process's `MetricsSystem`).
    public init(configuration: GatewayConfiguration, metricsFactory: (any MetricsFactory)?, logger: Logger) {
        sample = Self.scope("sample", configuration.sample, metricsFactory: metricsFactory, logger: logger)
        sample.configureAuthentication(
            authenticator: Self.authenticator(configuration.sample), store: InMemoryTokenStore(),
            configuration: SampleAPI.authenticationConfiguration)
        tracker = Self.scope("tracker", configuration.tracker, metricsFactory: metricsFactory, logger: logger)
        tracker.configureAuthentication(authenticator: Self.authenticator(configuration.tracker), store: InMemoryTokenStore())
        service = APIService(
            scopes: [sample, tracker], configuration: APIService.Configuration(drainTimeout: configuration.drainTimeout), logger: logger)
        repository = configuration.repository
        issueCount = configuration.issueCount
    }

    private static func scope(
        _ name: String, _ settings: GatewayConfiguration.APISettings, metricsFactory: (any MetricsFactory)?, logger: Logger
    ) -> APIScope {
        var configuration = settings.scope
        configuration.session = .nio(configuration: NIOEngineConfiguration(concurrency: settings.connections))
        configuration.metricsFactory = metricsFactory
        configuration.logger = logger
        if name == "tracker" {
            var mapper = configuration.mapperConfiguration
            mapper.dateDecodingStrategy = .iso8601
            configuration.mapperConfiguration = mapper
        }
        return APIScope(name: name, configuration: configuration)
    }

    private static func authenticator(_ settings: GatewayConfiguration.APISettings) -> OAuthClientCredentialsAuthenticator {
        OAuthClientCredentialsAuthenticator(tokenURL: settings.tokenURL, clientID: settings.clientID, clientSecret: settings.clientSecret)
    }

    /// Runs `body` with the gateway's scopes bound to the current task: SampleAPI's methods
    /// (which name no scope) and TrackerAPI's made inside it belong to this gateway's APIs, so
    /// two gateways in one process (the tests) never share a token or a session.
    public func bound<Result: Sendable>(_ body: () async throws -> Result) async rethrows -> Result {
        try await APIManager.withDefaultAPI(sample) {
            try await TrackerAPI.withAPI(tracker) { try await body() }
        }
    }
}
