/// Where an operation is in its life.
///
/// `readyToStart` → `working` ⇄ `suspended` → one of the three final states. An operation
/// cancelled before it started goes straight to `cancelled`.
public enum OperationState: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Created, not started yet.
    case readyToStart
    /// Started; its request is in flight (or about to be).
    case working
    /// Paused by `suspend()`: nothing is transferred until `resume()`.
    case suspended
    /// Ended with a response it accepts.
    case successFinished
    /// Ended with an error (transport, HTTP status, timeout, …).
    case failedFinished
    /// Ended by `cancel()`.
    case cancelled

    /// True for `readyToStart`, `working` and `suspended`: the operation has not ended.
    public var isWorkingOrInProcess: Bool {
        switch self {
        case .readyToStart, .working, .suspended: return true
        case .successFinished, .failedFinished, .cancelled: return false
        }
    }

    /// True for the three final states.
    public var isFinishedOrCancelled: Bool { !isWorkingOrInProcess }

    /// A short human-readable name, e.g. "working" or "finished with success".
    public var description: String {
        switch self {
        case .readyToStart: return "ready to start"
        case .working: return "working"
        case .suspended: return "suspended"
        case .successFinished: return "finished with success"
        case .failedFinished: return "finished with failure"
        case .cancelled: return "cancelled"
        }
    }
}
