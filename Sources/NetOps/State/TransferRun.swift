import Dispatch

/// What a network operation has only while it runs: the transfer in flight, or the retry it
/// waits for. The operation's machine carries it in `.running`, so none of it outlives the run.
/// Its deadline is armed with the scheduler of the operation's session.
///
/// Unchecked: it lives in its operation's machine, read and changed under the operation's lock
/// only; its one non-`Sendable` part, the retry timer, is a dispatch source, safe to cancel
/// from any thread.
struct TransferRun: MachineRun, @unchecked Sendable {
    /// The number this run's events carry; events with another number are stale and ignored.
    let number: UInt64
    /// When the run began (time suspended before it is counted in `workedSeconds`).
    let startedAt: DispatchTime
    /// The last time a byte moved, either way (the idle deadline counts from it).
    var lastActivity: DispatchTime
    /// Stops the transfer in flight; nil before the engine took it, and while a retry waits.
    var handle: (any TransferHandle)?
    /// Where a `Range` request resumed the body (0 for a whole body).
    var requestedOffset: Int64 = 0
    /// The timer that sends the request again after a retry delay.
    var retryTimer: RetryTimer?

    /// A run numbered `number` that starts now.
    init(number: UInt64, now: DispatchTime = .now()) {
        self.number = number
        self.startedAt = now
        self.lastActivity = now
    }

    /// True while no transfer is in flight because the run waits to send the request again.
    var isWaitingToRetry: Bool { retryTimer != nil }

    /// Cancels the retry timer, if one waits.
    mutating func cancelRetryTimer() {
        retryTimer?.source.cancel()
        retryTimer = nil
    }
}

/// A retry's timer behind one reference: a run that does not wait to retry carries 8 bytes for
/// it, not a 40-byte existential (every operation's machine holds up to two runs). Unchecked:
/// a dispatch source, safe to cancel from any thread.
final class RetryTimer: @unchecked Sendable {
    let source: any DispatchSourceTimer

    init(_ source: any DispatchSourceTimer) {
        self.source = source
    }
}
