import Dispatch
import Foundation

extension BaseOperation {
    /// Seconds without a byte moving (either way) after which the operation fails with
    /// `.idleTimeout`. Fractions are honoured. Defaults to the request's `timeoutInterval` (60 s).
    public var idleTimeout: TimeInterval {
        get { withLock { storage.settings.idleTimeout } }
        set {
            updateSettings { settings in
                settings.idleTimeout = max(0.001, newValue)
                settings.overrides.insert(.idleTimeout)
            }
        }
    }

    /// The most seconds the operation may spend working (time suspended does not count; the
    /// waits between retries do, and so does time parked waiting for a credential), after which
    /// it fails with `.deadlineExceeded`; nil (the default) for no limit.
    ///
    /// A parked operation whose deadline passes ends there (`.failedFinished`) and leaves the
    /// parked set: a later replay or failure of the parked operations does not touch it.
    public var totalTimeout: TimeInterval? {
        get { withLock { storage.settings.totalTimeout } }
        set {
            updateSettings { settings in
                settings.totalTimeout = newValue.map { max(0.001, $0) }
                settings.overrides.insert(.totalTimeout)
            }
        }
    }

    /// When the current transfer's nearer deadline falls. Call with the lock held.
    ///
    /// Data arriving does not re-arm anything: when the deadline comes the operation compares
    /// against its last activity and asks again if the transfer is still moving, so a busy
    /// transfer costs one check per idle period, not one per chunk.
    func nextDeadlineLocked() -> DispatchTime {
        let (idle, total, worked) = (storage.settings.idleTimeout, storage.settings.totalTimeout, storage.history.workedSeconds)
        return machine.withRun { run in
            var deadline = run.isWaitingToRetry ? DispatchTime.distantFuture : run.lastActivity + idle
            if let total { deadline = min(deadline, run.startedAt + max(0, total - worked)) }
            return deadline
        } ?? .distantFuture
    }

    /// Fails the transfer `attempt` if a deadline passed, or asks its scheduler to look again.
    func checkDeadlines(attempt: UInt64) {
        var again: (scheduler: DeadlineScheduler, deadline: DispatchTime)?
        withEffects { effects in
            if machine.isPostponed {
                guard let parked = storage.history.parked, parked.number == attempt, let total = storage.settings.totalTimeout else { return }
                let worked = storage.history.workedSeconds + Self.seconds(since: parked.since)
                guard worked >= total else {
                    if let session = sessionInEffectLocked {
                        again = (session.deadlines, parked.since + max(0, total - storage.history.workedSeconds))
                    }
                    return
                }
                let error = NetOpsError(.deadlineExceeded(seconds: total), url: currentURL)
                apply({ $0.abort(error) }, to: &effects)
                return
            }
            let current = machine.withRun { ($0.number, $0.lastActivity, $0.startedAt, $0.isWaitingToRetry, $0.handle) }
            guard let (number, lastActivity, startedAt, waitingToRetry, handle) = current, number == attempt else { return }
            let idle = Self.seconds(since: lastActivity)
            let worked = storage.history.workedSeconds + Self.seconds(since: startedAt)
            var error: NetOpsError
            if idle >= storage.settings.idleTimeout, !waitingToRetry {
                error = NetOpsError(.idleTimeout(seconds: storage.settings.idleTimeout), url: currentURL)
                // A transfer stage that kept the request is named (it holds its own lock only).
                if let keeper = (handle as? StagedTransfer)?.keeper { error.underlying = keeper }
            } else if let total = storage.settings.totalTimeout, worked >= total {
                error = NetOpsError(.deadlineExceeded(seconds: total), url: currentURL)
            } else {
                if let session = sessionInEffectLocked { again = (session.deadlines, nextDeadlineLocked()) }
                return
            }
            apply({ $0.abort(error) }, to: &effects)
        }
        if let again { again.scheduler.arm(self, attempt: attempt, at: again.deadline) }
    }
}
