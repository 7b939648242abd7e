/// The lifecycle of one operation as a value: each event moves the state and returns what the
/// owner must do next.
///
/// The owning operation holds its lock while it asks the machine, then leaves the lock and
/// performs the returned action (start or stop a transfer, clean up). Everything observable —
/// `isExecuting`/`isFinished` notifications, completion callbacks — is derived by the owner from
/// the states before and after the event, so it happens exactly once per real change.
///
/// Races it settles:
/// - `cancel()` while a transfer is completing: whichever event reaches the machine first wins;
///   the loser gets `.none` (a late `transferFinished` after `cancel` is ignored, and a `cancel`
///   after the transfer finished changes nothing).
/// - A suspended transfer's late callbacks: `suspend()` moves the machine out of `.running`, so a
///   `transferFinished` from the stopped transfer is ignored.
/// - `cancel()` before `start()` inside an `OperationQueue`: the queue still calls `start()`;
///   the machine then moves `cancelledBeforeStart` → `finished(.cancelled)` so the owner posts
///   `isFinished` and the queue lets go of the operation.
/// - A parked (postponed) operation cancelled while its replay is being decided: `cancel()`
///   moves it out of `.postponed`, so the late `replay()` does nothing.
package struct OperationStateMachine: Sendable, Equatable {
    /// The machine's states; `state` maps them to the public `OperationState`.
    package enum State: Sendable, Equatable {
        /// Created, not started.
        case idle
        /// A transfer is in flight.
        case running
        /// Paused; no transfer in flight.
        case suspended
        /// Parked until a fresh credential exists (a 401): no transfer in flight; replayed or
        /// failed as a whole with the other parked operations.
        case postponed
        /// Cancelled before `start()`: final for callers, but `isFinished` waits for `start()`.
        case cancelledBeforeStart
        /// Ended.
        case finished(OperationState)
    }

    /// What the owner does after an event.
    package enum Action: Sendable, Equatable {
        /// Nothing: the event did not apply in this state.
        case none
        /// Send the request (first run, or resuming after a suspension).
        case beginTransfer
        /// Stop the transfer in flight, keeping what arrived (suspension).
        case stopTransfer
        /// Stop the transfer in flight and discard what arrived (cancel, timeout).
        case stopTransferAndDiscard
        /// No transfer is in flight; discard what arrived (cancel while suspended).
        case discard
        /// The transfer ended by itself: finalize the result (success or failure).
        case complete
        /// Stop the transfer in flight, drop what arrived, and park the operation.
        case park
        /// Take the operation out of the parked set and discard what it holds.
        case unpark
    }

    /// The current state.
    package private(set) var current: State = .idle

    /// A machine in `.idle`.
    package init() {}

    /// The state as callers see it.
    package var state: OperationState {
        switch current {
        case .idle: return .readyToStart
        case .running, .postponed: return .working
        case .suspended: return .suspended
        case .cancelledBeforeStart: return .cancelled
        case let .finished(final): return final
        }
    }

    /// What `Operation.isExecuting` reports.
    package var isExecuting: Bool {
        current == .running || current == .suspended || current == .postponed
    }

    /// True while the operation is parked.
    package var isPostponed: Bool {
        current == .postponed
    }

    /// What `Operation.isFinished` reports.
    package var isFinished: Bool {
        if case .finished = current { return true }
        return false
    }

    /// `start()`: begins the first transfer; on a suspended operation it resumes.
    package mutating func start() -> Action {
        switch current {
        case .idle, .suspended:
            current = .running
            return .beginTransfer
        case .cancelledBeforeStart:
            current = .finished(.cancelled)
            return .none
        case .running, .postponed, .finished:
            return .none
        }
    }

    /// `suspend()`: pauses a running transfer.
    package mutating func suspend() -> Action {
        guard current == .running else { return .none }
        current = .suspended
        return .stopTransfer
    }

    /// `resume()`: continues a suspended operation.
    package mutating func resume() -> Action {
        guard current == .suspended else { return .none }
        current = .running
        return .beginTransfer
    }

    /// `cancel()`: ends the operation as `.cancelled` unless it already ended.
    package mutating func cancel() -> Action {
        switch current {
        case .idle:
            current = .cancelledBeforeStart
            return .none
        case .running:
            current = .finished(.cancelled)
            return .stopTransferAndDiscard
        case .suspended:
            current = .finished(.cancelled)
            return .discard
        case .postponed:
            current = .finished(.cancelled)
            return .unpark
        case .cancelledBeforeStart, .finished:
            return .none
        }
    }

    /// The operation needs a fresh credential: park it until `replay()` or `abort()`.
    package mutating func postpone() -> Action {
        guard current == .running else { return .none }
        current = .postponed
        return .park
    }

    /// A fresh credential exists: send the parked operation's request again.
    package mutating func replay() -> Action {
        guard current == .postponed else { return .none }
        current = .running
        return .beginTransfer
    }

    /// The transfer reported its end; `succeeded` says whether the result is accepted.
    package mutating func transferFinished(succeeded: Bool) -> Action {
        guard current == .running else { return .none }
        current = .finished(succeeded ? .successFinished : .failedFinished)
        return .complete
    }

    /// The operation itself gives up on a running, suspended or parked transfer (a deadline
    /// passed, a request could not be built, the credential refresh failed): it ends as
    /// `.failedFinished`.
    package mutating func abort() -> Action {
        switch current {
        case .running:
            current = .finished(.failedFinished)
            return .stopTransferAndDiscard
        case .suspended:
            current = .finished(.failedFinished)
            return .discard
        case .postponed:
            current = .finished(.failedFinished)
            return .unpark
        case .idle, .cancelledBeforeStart, .finished:
            return .none
        }
    }
}
