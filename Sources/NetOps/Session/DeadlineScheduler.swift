import Dispatch

/// One timer for the deadlines of every operation of a session.
///
/// An operation used to arm a dispatch timer of its own for each transfer, and cancel it when the
/// transfer ended: two trips through dispatch's timer thread per request. The session's scheduler
/// keeps each working operation's next deadline in a table and arms its one timer for the
/// earliest. Arming a later deadline (the usual case: every transfer gets the same idle timeout)
/// does not touch the timer; an operation that ends leaves the table and the timer fires early,
/// finds nothing due and re-arms for what is left. Operations are told outside the lock.
package final class DeadlineScheduler: @unchecked Sendable {
    /// An operation's deadline. The operation is held strongly: a weak reference would give
    /// every operation a side table, which makes each of its retains and releases (a hundred per
    /// request) take the slow path. An entry leaves when its run ends (`disarm`) or its deadline
    /// fires, so it keeps an operation no longer than that.
    private struct Entry {
        let operation: BaseOperation
        var attempt: UInt64
        var deadline: DispatchTime
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        /// When the timer fires next; nil while it is idle.
        var armedFor: DispatchTime?
        var timer: (any DispatchSourceTimer)?
    }

    private let state = Locked(State())

    /// A scheduler with no deadlines; its timer is made with the first one.
    package init() {}

    deinit {
        state.withLock { $0.timer?.cancel() }
    }

    /// Asks for `operation.checkDeadlines(attempt:)` at `deadline`, replacing what the operation
    /// asked for before unless that was for a later attempt.
    package func arm(_ operation: BaseOperation, attempt: UInt64, at deadline: DispatchTime) {
        state.withLock { state in
            let key = ObjectIdentifier(operation)
            if let existing = state.entries[key], existing.attempt > attempt { return }
            state.entries[key] = Entry(operation: operation, attempt: attempt, deadline: deadline)
            if let armedFor = state.armedFor, armedFor <= deadline { return }
            schedule(&state, at: deadline)
        }
    }

    /// Forgets the deadline of `operation` unless it was asked for by an attempt after `attempt`.
    package func disarm(_ operation: BaseOperation, before attempt: UInt64) {
        state.withLock { state in
            let key = ObjectIdentifier(operation)
            guard let existing = state.entries[key], existing.attempt < attempt else { return }
            state.entries[key] = nil
        }
    }

    /// The number of deadlines waiting (for tests).
    package var count: Int { state.withLock { $0.entries.count } }

    /// Arms the one timer (a leaf call into dispatch, no callback under the lock).
    private func schedule(_ state: inout State, at deadline: DispatchTime) {
        state.armedFor = deadline
        if let timer = state.timer {
            timer.schedule(deadline: deadline, leeway: .milliseconds(1))
            return
        }
        let timer = DispatchSource.makeTimerSource(queue: CompletionQueue.timers)
        // The timer's queue only hands the firing on: what fires ends operations, and their
        // completion handlers may block.
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            CompletionQueue.async { self.fire() }
        }
        timer.schedule(deadline: deadline, leeway: .milliseconds(1))
        state.timer = timer
        timer.resume()
    }

    /// Takes every due deadline out of the table, re-arms for the earliest left, then tells the
    /// operations whose deadline came.
    private func fire() {
        let due = state.withLock { state -> [(BaseOperation, UInt64)] in
            let now = DispatchTime.now()
            var due: [(BaseOperation, UInt64)] = []
            var gone: [ObjectIdentifier] = []
            var next: DispatchTime?
            for (key, entry) in state.entries {
                if entry.deadline <= now {
                    due.append((entry.operation, entry.attempt))
                    gone.append(key)
                } else if next.map({ entry.deadline < $0 }) ?? true {
                    next = entry.deadline
                }
            }
            for key in gone { state.entries[key] = nil }
            state.armedFor = nil
            if let next { schedule(&state, at: next) }
            return due
        }
        for (operation, attempt) in due {
            operation.checkDeadlines(attempt: attempt)
        }
    }
}
