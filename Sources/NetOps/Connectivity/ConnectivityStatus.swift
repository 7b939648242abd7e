/// Whether the machine can reach the network, as a `ConnectivityMonitor` last found it.
public enum ConnectivityStatus: Sendable, Hashable, CustomStringConvertible {
    /// Every check the monitor is configured with passed.
    case online
    /// A check failed; `reason` says which and how.
    case offline(reason: String)

    /// True for `.online`.
    public var isOnline: Bool { self == .online }

    /// `online`, or `offline: <reason>`.
    public var description: String {
        switch self {
        case .online: return "online"
        case let .offline(reason): return "offline: \(reason)"
        }
    }
}
