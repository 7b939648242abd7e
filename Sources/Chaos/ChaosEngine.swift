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

    /// The length of the URLSession engine's download segments in a chaos run: 64 KiB.
    static let urlSessionSegmentLength: Int64 = 64 << 10

    /// The one place that turns an engine choice into the `NetworkSession` the run uses.
    public func makeSession() -> NetworkSession {
        switch self {
        case .urlsession:
            let configuration = NetworkSession.defaultConfiguration()
            configuration.httpMaximumConnectionsPerHost = 32
            // Segments far shorter than the default, so that the run's downloads (up to 512 KB)
            // come in several segments, one read ahead, under the random cancels and suspensions.
            return NetworkSession(configuration: configuration, downloadSegmentLength: Self.urlSessionSegmentLength)
        case .nio:
            return .nio(configuration: NIOEngineConfiguration(concurrency: 32))
        case .nioLoop:
            var configuration = NIOEngineConfiguration(concurrency: 32)
            configuration.completionDelivery = .eventLoop
            return .nio(configuration: configuration)
        }
    }
}
