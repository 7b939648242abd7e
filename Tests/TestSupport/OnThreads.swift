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
