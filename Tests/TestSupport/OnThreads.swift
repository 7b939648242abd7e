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
/// 30 s by default: the polling task itself shares Swift's cooperative pool with every test of
/// the run, and on two busy cores it can run seconds late. Only a failing wait takes that long.
/// What must happen at a point of a body (a pause, a cancel) happens in `whenBodies(of:reach:_:)`.
public func eventually(within seconds: Double = 30, _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}
