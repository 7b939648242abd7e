import Dispatch
import Foundation

/// An `Operation` that can call back once it reached its final state: the one mechanism behind
/// `syncStart()`, `run()` and `finished()` of both network operations and groups.
protocol FinalStateWaiting: Operation {
    /// Calls `waiter` once the operation is final (at once if it already is).
    func whenFinal(_ waiter: @escaping @Sendable () -> Void)
}

extension FinalStateWaiting {
    /// Starts the operation and blocks the calling thread until it is final.
    func startAndWait() {
        let finished = DispatchSemaphore(value: 0)
        whenFinal { finished.signal() }
        start()
        finished.wait()
    }

    /// Starts the operation and waits for it without blocking a thread; cancelling the calling
    /// task cancels the operation.
    func startAndAwait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                whenFinal { continuation.resume() }
                start()
            }
        } onCancel: {
            cancel()
        }
    }

    /// Waits until the operation is final, whoever starts it.
    func awaitFinal() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            whenFinal { continuation.resume() }
        }
    }
}

extension BaseOperation: FinalStateWaiting, OperationLifecycle {}
extension GroupOperation: FinalStateWaiting, OperationLifecycle {}
