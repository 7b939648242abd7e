import Dispatch
import Foundation

extension BaseOperation {
    /// Seconds without a byte moving (either way) after which the operation fails with
    /// `.idleTimeout`. Fractions are honoured. Defaults to the request's `timeoutInterval` (60 s).
    public var idleTimeout: TimeInterval {
        get { withLock { storage.idleTimeout } }
        set { withLock { storage.idleTimeout = max(0.001, newValue) } }
    }

    /// The most seconds the operation may spend working (time suspended does not count), after
    /// which it fails with `.deadlineExceeded`; nil (the default) for no limit.
    public var totalTimeout: TimeInterval? {
        get { withLock { storage.totalTimeout } }
        set { withLock { storage.totalTimeout = newValue.map { max(0.001, $0) } } }
    }

    /// Arms one timer for the nearer of the two deadlines. Call with the lock held.
    ///
    /// Data arriving does not touch the timer: when it fires it compares against the last
    /// activity and re-arms itself if the transfer is still moving, so a busy transfer costs one
    /// timer event per idle period, not one per chunk.
    func scheduleDeadlineCheckLocked() {
        stopDeadlineTimer()
        let attempt = storage.attempt
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        timer.setEventHandler { [weak self] in
            self?.checkDeadlines(attempt: attempt)
        }
        timer.schedule(deadline: nextDeadlineLocked())
        storage.deadlineTimer = timer
        timer.resume()
    }

    func stopDeadlineTimer() {
        storage.deadlineTimer?.cancel()
        storage.deadlineTimer = nil
    }

    private func nextDeadlineLocked() -> DispatchTime {
        var deadline = storage.lastActivity + storage.idleTimeout
        if let total = storage.totalTimeout, let since = storage.workingSince {
            deadline = min(deadline, since + max(0, total - storage.workedSeconds))
        }
        return deadline
    }

    private func checkDeadlines(attempt: UInt64) {
        withEffects { effects in
            guard isCurrent(attempt) else { return }
            let now = DispatchTime.now()
            let idle = Double(now.uptimeNanoseconds &- storage.lastActivity.uptimeNanoseconds) / 1e9
            var worked = storage.workedSeconds
            if let since = storage.workingSince {
                worked += Double(now.uptimeNanoseconds &- since.uptimeNanoseconds) / 1e9
            }
            if idle >= storage.idleTimeout {
                storage.error = NetOpsError(.idleTimeout(seconds: storage.idleTimeout), url: currentURL)
            } else if let total = storage.totalTimeout, worked >= total {
                storage.error = NetOpsError(.deadlineExceeded(seconds: total), url: currentURL)
            } else {
                storage.deadlineTimer?.schedule(deadline: nextDeadlineLocked())
                return
            }
            apply({ $0.abort() }, to: &effects)
        }
    }
}
