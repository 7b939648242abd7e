import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension BaseOperation {
    private static let sharedRetryPolicy = Locked(RetryPolicy.none)

    /// The retry policy of operations that have none of their own: `.none` unless you set one.
    /// An operation reads it when it is made.
    public static var defaultRetryPolicy: RetryPolicy {
        get { sharedRetryPolicy.withLock { $0 } }
        set { sharedRetryPolicy.withLock { $0 = newValue } }
    }

    /// This operation's retry policy; nil (the default) uses `BaseOperation.defaultRetryPolicy`.
    public var retryPolicy: RetryPolicy? {
        get { withLock { storage.retryPolicy } }
        set { withLock { storage.retryPolicy = newValue } }
    }

    /// Whether the request may be sent twice: by default true for idempotent methods only. Set
    /// it for a POST whose body the server deduplicates.
    public var isReplayable: Bool {
        get { withLock { isReplayableLocked } }
        set { withLock { storage.isReplayable = newValue } }
    }

    var isReplayableLocked: Bool {
        if let explicit = storage.isReplayable { return explicit }
        let method = ((try? storage.request.get())?.httpMethod ?? "GET").uppercased()
        return RetryPolicy.idempotentMethods.contains(method)
    }

    /// Requests sent so far (1 after the first; retries and replays add to it).
    public var attemptsMade: Int { withLock { storage.attemptsMade } }

    /// Waits `delay` seconds, then sends the request again. Call with the lock held.
    func scheduleRetryLocked(after delay: TimeInterval) {
        storage.retryWaited += delay
        storage.handle = nil
        storage.attempt &+= 1
        storage.response = nil
        try? sink.reset()
        let attempt = storage.attempt
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        timer.setEventHandler { [weak self] in self?.retryNow(attempt: attempt) }
        timer.schedule(deadline: .now() + delay)
        storage.retryTimer = timer
        timer.resume()
    }

    private func retryNow(attempt: UInt64) {
        withEffects { effects in
            guard isCurrent(attempt) else { return }
            storage.retryTimer = nil
            switch prepareTransfer(firstRun: false) {
            case let .success(prepared):
                effects.begin = prepared
            case let .failure(error):
                storage.error = error
                apply({ $0.transferFinished(succeeded: false) }, to: &effects)
            }
        }
    }
}
