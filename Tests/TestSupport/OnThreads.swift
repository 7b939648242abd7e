import Foundation

/// Runs `body` on `count` new threads at once (not on Swift-concurrency threads, so blocking
/// calls like `syncStart()` are allowed) and returns when all have returned.
public func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    await withTaskGroup(of: Void.self) { group in
        for index in 0..<count {
            group.addTask {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    Thread {
                        body(index)
                        continuation.resume()
                    }.start()
                }
            }
        }
    }
}

/// Runs `body` on a thread of its own and returns what it returns, without blocking one of Swift's
/// cooperative threads: for waiting on a child process, whose blocking waits would otherwise hold
/// up every task of the test process — DemoServer's handlers included — while it runs.
public func offCooperativePool<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
        Thread {
            continuation.resume(with: Swift.Result { try body() })
        }.start()
    }
}

/// Polls `condition` every 5 ms until it holds or `seconds` pass; returns whether it held.
///
/// The polling runs on a thread of its own, not in the calling task: on two busy cores a task of
/// Swift's cooperative pool can run seconds late, and a state that lasts a moment (a call parked
/// for a second) would pass unseen. What the test does next still runs in its task; what must
/// happen at a point of a body (a pause, a cancel) happens in `whenBodies(of:reach:_:)`. 30 s by
/// default: only a failing wait takes that long.
public func eventually(within seconds: Double = 30, _ condition: @escaping @Sendable () -> Bool) async -> Bool {
    if condition() { return true }
    return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        Thread {
            let deadline = Date(timeIntervalSinceNow: seconds)
            while Date() < deadline {
                if condition() {
                    continuation.resume(returning: true)
                    return
                }
                usleep(5_000)
            }
            continuation.resume(returning: condition())
        }.start()
    }
}

/// `value()` once it stayed the same for 300 ms (read for at most about `seconds`): for a count
/// that something outside the test still moves for a moment, as a server finishing its writes
/// into a closed connection or a late request reaching a log.
public func settled(within seconds: Double = 10, _ value: @Sendable () async throws -> Int) async rethrows -> Int {
    var last = try await value()
    for _ in 0..<max(1, Int(seconds / 0.3)) {
        try? await Task.sleep(for: .milliseconds(300))
        let now = try await value()
        if now == last { return now }
        last = now
    }
    return last
}
