import NetOps

/// How many telemetry reports are queued and not yet made, in the whole process.
final class PendingReports: Sendable {
    static let shared = PendingReports()
    private let count = Locked(0)

    func add() { count.withLock { $0 += 1 } }
    func remove() { count.withLock { $0 -= 1 } }
    var isEmpty: Bool { count.withLock { $0 == 0 } }
}

extension APIManager {
    /// Returns once every metric, span and log line of the calls so far was reported (calls
    /// report on queues of their own, after the fact): for a tool that prints what it recorded.
    package static func telemetryReported() async {
        while !PendingReports.shared.isEmpty {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}

extension APIOperation {
    /// Returns once every metric, span and log line this call queued so far was reported.
    package func telemetryReported() async {
        await telemetry.withLock { $0 }?.reported()
    }
}
