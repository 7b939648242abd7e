import NetOps

/// How many telemetry reports of one API's calls and refreshes are queued and not yet made:
/// one per API scope, so no call reports through state it shares with other APIs.
final class ReportBacklog: Sendable {
    private let count = Locked(0)

    /// A report was queued.
    func add() { count.withLock { $0 += 1 } }
    /// A queued report was made.
    func remove() { count.withLock { $0 -= 1 } }
    /// Whether every queued report was made.
    var isEmpty: Bool { count.withLock { $0 == 0 } }

    /// Returns once the backlog is empty.
    func drained() async {
        while !isEmpty {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}

extension APIManager {
    /// Returns once every metric, span and log line of the calls so far of the default API and
    /// of `scopes` was reported (calls report on queues of their own, after the fact): for a
    /// tool that prints what it recorded.
    package static func telemetryReported(in scopes: [APIScope] = []) async {
        for scope in [defaultAPI] + scopes { await scope.reportBacklog.drained() }
    }
}

extension APIOperation {
    /// Returns once every metric, span and log line this call queued so far was reported.
    package func telemetryReported() async {
        await telemetry.withLock { $0 }?.reported()
    }
}
