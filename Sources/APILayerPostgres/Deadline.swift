import NetOps

/// Runs `body` and returns its result, or throws `failure` after `seconds`, whichever comes
/// first, without waiting for `body` to notice: a statement stuck behind a database lock goes
/// on in the background while its caller moves on.
func withDeadline<Result: Sendable>(
    seconds: Double, failure: any Error, _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    let resumed = Locked(false)
    /// The first to call it resumes; later calls do nothing.
    @Sendable func once(_ continuation: CheckedContinuation<Result, any Error>, _ result: Swift.Result<Result, any Error>) {
        guard
            resumed.withLock({ done in
                defer { done = true }
                return !done
            })
        else { return }
        continuation.resume(with: result)
    }
    let tasks = Locked<[Task<Void, Never>]>([])
    let result = try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
            let work = Task {
                do { once(continuation, .success(try await body())) } catch { once(continuation, .failure(error)) }
            }
            let timer = Task {
                try? await Task.sleep(for: .seconds(seconds))
                once(continuation, .failure(Task.isCancelled ? CancellationError() : failure))
            }
            tasks.withLock { $0 = [work, timer] }
        }
    } onCancel: {
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }
    for task in tasks.withLock({ $0 }) { task.cancel() }
    return result
}
