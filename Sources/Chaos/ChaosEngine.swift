import NetOps
import NetOpsNIO

/// The transfer engine a chaos run drives.
public enum ChaosEngine: String, CaseIterable, Sendable {
    /// FoundationNetworking's URLSession (libcurl).
    case urlsession
    /// SwiftNIO through AsyncHTTPClient (`NetOpsNIO`).
    case nio
    /// SwiftNIO with `completionDelivery = .eventLoop`: operations end on the event loop.
    case nioLoop = "nio-loop"

    /// The one place that turns an engine choice into the `NetworkSession` the run uses.
    public func makeSession() -> NetworkSession {
        switch self {
        case .urlsession:
            let configuration = NetworkSession.defaultConfiguration()
            configuration.httpMaximumConnectionsPerHost = 32
            return NetworkSession(configuration: configuration)
        case .nio:
            return .nio(configuration: NIOEngineConfiguration(concurrency: 32))
        case .nioLoop:
            var configuration = NIOEngineConfiguration(concurrency: 32)
            configuration.completionDelivery = .eventLoop
            return .nio(configuration: configuration)
        }
    }
}
