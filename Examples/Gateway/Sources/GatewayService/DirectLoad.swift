import Foundation

/// What the gateway's direct mode measured: the same pairs of calls as `/overview/{user}`
/// makes, from tasks in this process, without Hummingbird in front.
public struct DirectRun: Sendable, Codable {
    /// Concurrent tasks, each making one pair of calls at a time.
    public var concurrency: Int
    /// Seconds measured (after the warm-up).
    public var seconds: Double
    /// Pairs of calls that both succeeded.
    public var pairs: Int
    /// Pairs in which a call failed.
    public var failedPairs: Int
    /// Outgoing API calls of the pairs that succeeded (two per pair).
    public var calls: Int
    /// Outgoing API calls per second.
    public var callsPerSecond: Double
}

extension GatewayAPIs {
    /// Makes overviews of `user` from `concurrency` tasks for `warmUp` (not counted), then for
    /// `duration`, and says how many calls per second went out.
    public func directLoad(concurrency: Int, duration: Duration, warmUp: Duration = .seconds(1), user: Int = 1) async -> DirectRun {
        _ = await round(concurrency: concurrency, duration: warmUp, user: user)
        let clock = ContinuousClock()
        let started = clock.now
        let (pairs, failed) = await round(concurrency: concurrency, duration: duration, user: user)
        let elapsed = started.duration(to: clock.now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let calls = 2 * pairs
        return DirectRun(
            concurrency: concurrency, seconds: seconds, pairs: pairs, failedPairs: failed, calls: calls, callsPerSecond: Double(calls) / seconds)
    }

    /// Pairs that succeeded and failed in `duration`, `concurrency` at a time.
    private func round(concurrency: Int, duration: Duration, user: Int) async -> (succeeded: Int, failed: Int) {
        let deadline = ContinuousClock.now.advanced(by: duration)
        return await withTaskGroup(of: (Int, Int).self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var counts = (succeeded: 0, failed: 0)
                    while ContinuousClock.now < deadline {
                        if (try? await overview(of: user)) != nil { counts.succeeded += 1 } else { counts.failed += 1 }
                    }
                    return counts
                }
            }
            return await group.reduce(into: (succeeded: 0, failed: 0)) { total, task in
                total.succeeded += task.0
                total.failed += task.1
            }
        }
    }
}
