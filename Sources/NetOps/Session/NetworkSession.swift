import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A connection pool and its settings, shared by the operations that run in it.
///
/// Every operation runs in `BaseOperation.defaultSession` unless it is given a
/// `privateSession`. Make a session of your own for other limits, headers or TLS settings:
///
/// ```swift
/// let configuration = URLSessionConfiguration.default
/// configuration.httpMaximumConnectionsPerHost = 32
/// let session = NetworkSession(configuration: configuration)
/// let operation = DataTaskOperation.get(url)
/// operation.privateSession = session
/// ```
public final class NetworkSession: Sendable {
    package let engine: any TransferEngine
    /// The one timer behind the idle and total deadlines of this session's operations.
    package let deadlines = DeadlineScheduler()

    /// A URLSession-backed session with `configuration`.
    ///
    /// NetOps installs its own session delegate (it is how operations receive progress and how
    /// Linux's authentication-challenge hang is avoided), so the configuration is all you give.
    public init(configuration: URLSessionConfiguration = NetworkSession.defaultConfiguration()) {
        self.engine = URLSessionEngine(configuration: configuration)
    }

    /// A URLSession-backed session whose downloads are fetched in `Range` segments of
    /// `downloadSegmentLength` bytes, or in one request when it is nil (benchmarks and tests
    /// compare the two).
    package init(configuration: URLSessionConfiguration, downloadSegmentLength: Int64?) {
        self.engine = URLSessionEngine(configuration: configuration, segmentLength: downloadSegmentLength)
    }

    /// A session over any engine (used by other engines of this package).
    package init(engine: any TransferEngine) {
        self.engine = engine
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
