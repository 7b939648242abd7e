import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client: an engine with its connection pool, the options its operations run with (retry
/// policy, middleware chain, timeouts, response limit, redaction), the lot where its
/// operations park and the table of its `timeLimitBetweenRuns` slots.
///
/// Every operation runs in `NetworkSession.shared` unless it is given a `privateSession`.
/// Make a session of your own for other limits, stages or an engine of its own:
///
/// ```swift
/// let configuration = NetworkSession.defaultConfiguration()
/// configuration.httpMaximumConnectionsPerHost = 32
/// var options = NetworkSession.Options()
/// options.retryPolicy = RetryPolicy(maximumAttempts: 3)
/// let session = NetworkSession(configuration: configuration, options: options)
/// let operation = DataTaskOperation.get(url)
/// operation.privateSession = session
/// ```
///
/// A session's options are fixed when it is made; an operation takes its session's options and
/// chain when it starts. A session stays alive while an operation that started in it runs.
public final class NetworkSession: Sendable {
    package let engine: any TransferEngine
    /// What the session's operations run with.
    public let options: Options
    /// Where operations parked by `BaseOperation.postpone(_:)` or by their interceptor wait.
    public let parkingLot = ParkingLot()
    /// The one timer behind the idle and total deadlines of this session's operations.
    package let deadlines = DeadlineScheduler()
    /// When each request limited by `timeLimitBetweenRuns` may run next.
    package let runLimits = RunLimits()

    /// The session of operations that have none of their own: a URLSession-backed session with
    /// `defaultConfiguration()` and default options, made the first time an operation without a
    /// `privateSession` starts (a service whose operations all have one never makes it).
    public static let shared = NetworkSession()

    /// A URLSession-backed session with `configuration` and `options`.
    ///
    /// NetOps installs its own session delegate (it is how operations receive progress and how
    /// Linux's authentication-challenge hang is avoided), so the configuration is all you give.
    public init(configuration: URLSessionConfiguration = NetworkSession.defaultConfiguration(), options: Options = Options()) {
        self.engine = URLSessionEngine(configuration: configuration)
        self.options = options
    }

    /// A URLSession-backed session whose downloads are fetched in `Range` segments of
    /// `downloadSegmentLength` bytes, or in one request when it is nil (benchmarks and tests
    /// compare the two), giving the memory freed by their chunks back every `giveBackEvery`
    /// segments (nil: the engine's default; 0: never).
    package init(
        configuration: URLSessionConfiguration, downloadSegmentLength: Int64?, giveBackEvery: Int? = nil, options: Options = Options()
    ) {
        self.engine = URLSessionEngine(
            configuration: configuration, segmentLength: downloadSegmentLength,
            giveBackEvery: giveBackEvery ?? URLSessionEngine.defaultGiveBackEvery)
        self.options = options
    }

    /// A session over any engine (used by other engines of this package).
    package init(engine: any TransferEngine, options: Options = Options()) {
        self.engine = engine
        self.options = options
    }

    /// Why the session's engine cannot run a transfer to `url` asking for `transport` (TLS
    /// settings or an HTTP version it cannot apply), naming the engine that can; nil when it can.
    package func refusal(of transport: TransportChoice, for url: URL?) -> TransferFailure? {
        engine.refusal(of: transport, for: url)
    }

    /// The configuration of sessions made without one: URLSession's defaults, with no response
    /// cache (operations see every response), no cookie storage (cookies are an operation's
    /// `cookieJar`; the engine never uses `HTTPCookieStorage`, whatever a configuration says) and
    /// 16 connections per host.
    public static func defaultConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = 16
        return configuration
    }
}

extension NetworkSession {
    /// How many URLSessions this process made for its engines (a diagnostic for the check that a
    /// NIO-only service makes none).
    package static var urlSessionsMade: Int { URLSessionEngine.sessionsMade.withLock { $0 } }
}
