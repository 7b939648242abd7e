import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension BaseOperation {
    /// The retry policy of operations that have none of their own.
    @available(*, deprecated, message: "set NetworkSession.Options.retryPolicy on the session the operations run in")
    public static var defaultRetryPolicy: RetryPolicy { NetworkSession.shared.options.retryPolicy }

    /// This operation's retry policy; nil (the default) uses its session's
    /// (`NetworkSession.Options.retryPolicy`).
    public var retryPolicy: RetryPolicy? {
        get { withLock { storage.settings.retryPolicy } }
        set { updateSettings { settings in settings.retryPolicy = newValue } }
    }

    /// Whether the request may be sent twice: by default true for idempotent methods only. Set
    /// it for a POST whose body the server deduplicates.
    public var isReplayable: Bool {
        get { withLock { isReplayableLocked } }
        set { updateSettings { settings in settings.isReplayable = newValue } }
    }

    var isReplayableLocked: Bool {
        if let explicit = storage.settings.isReplayable { return explicit }
        let method = ((try? storage.request.get())?.httpMethod ?? "GET").uppercased()
        return RetryPolicy.idempotentMethods.contains(method)
    }

    /// Requests sent so far (1 after the first; retries and replays add to it).
    public var attemptsMade: Int { withLock { storage.history.attemptsMade } }

    /// Waits `delay` seconds, then sends the request again. Call with the lock held.
    ///
    /// The transfer that failed is over; a new run, numbered now, waits for the timer, so
    /// nothing of the old one (a late event, its deadline) applies any more. The time waited
    /// counts as working time: a `totalTimeout` that passes during the wait ends the operation
    /// then (the idle timeout does not run while no transfer is in flight).
    func scheduleRetryLocked(after delay: TimeInterval, effects: inout Effects) {
        guard machine.phase == .running else { return }
        storage.history.retryWaited += delay
        storage.response = nil
        effects.cleanUp(sink.reset())
        var next = newRunLocked()
        let number = next.number
        let timer = DispatchSource.makeTimerSource(queue: CompletionQueue.timers)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            CompletionQueue.async { self.retryNow(run: number) }
        }
        timer.schedule(deadline: .now() + delay)
        next.retryTimer = RetryTimer(timer)
        _ = machine.replaceRun(with: next)
        if let ended = machine.takeEndedRun() { end(ended, stopping: false, in: &effects) }
        timer.resume()
        if storage.settings.totalTimeout != nil, let session = sessionInEffectLocked {
            effects.arm = (session.deadlines, number, nextDeadlineLocked())
        }
    }

    private func retryNow(run number: UInt64) {
        withEffects { effects in
            guard isCurrent(number) else { return }
            _ = machine.updateRun { $0.retryTimer = nil }
            switch prepareTransfer(firstRun: false, effects: &effects) {
            case let .success(prepared):
                effects.begin = prepared
            case let .failure(error):
                apply({ $0.transferFinished(failure: error) }, to: &effects)
            }
        }
    }
}
