/// The lifecycle of one operation as a value whose states carry their data: each event moves
/// the state and returns what the owner must do next.
///
/// `Run` is what exists only while the operation runs (for a network operation the transfer in
/// flight: its number, its handle, where it resumed, its clock; for a group nothing), and
/// `Failure` the error a failed or cancelled operation ends with. Neither outlives its state:
/// leaving `.running` drops the run, and the error is recorded once, by the event that ends
/// the operation.
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
package struct OperationStateMachine<Run: MachineRun, Failure: Sendable>: Sendable {
    /// The machine's states, each with the data it needs; `state` maps them to the public
    /// `OperationState`.
    package enum State: Sendable {
        /// Created, not started.
        case idle
        /// A transfer is in flight (or about to be sent again): `Run` describes it.
        case running(Run)
        /// Paused; no transfer in flight.
        case suspended
        /// Parked until a fresh credential exists (a 401): no transfer in flight; replayed or
        /// failed as a whole with the other parked operations.
        case postponed
        /// Cancelled before `start()`: final for callers, but `isFinished` waits for `start()`.
        case cancelledBeforeStart(Failure?)
        /// Ended, with the error of a failure or cancellation.
        case finished(OperationState, Failure?)
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

    /// The run the last event ended (moved out of `.running`), until the owner takes it. (A
    /// group's run is empty: it never takes it.)
    private var endedRun: Run?

    /// A machine in `.idle`.
    package init() {}

    /// The current state without its data, and as callers see it.
    package private(set) var snapshot = LifecycleSnapshot(phase: .idle, state: .readyToStart)

    /// The number of the run in progress; nil unless `.running`. Kept beside the state, so the
    /// question every transfer event asks (is it from the current run?) copies no run.
    package private(set) var runNumber: UInt64?

    /// Takes the run that the last event ended, if it ended one: its transfer to stop, its
    /// timer to cancel, its deadline to forget.
    package mutating func takeEndedRun() -> Run? {
        defer { endedRun = nil }
        return endedRun
    }

    /// Moves to `next`, keeping the run it leaves for `takeEndedRun()`.
    private mutating func leave(to next: State) {
        if case let .running(run) = current { endedRun = run }
        set(next)
    }

    /// Moves to `next` and notes its snapshot (read often, so reading it copies nothing).
    private mutating func set(_ next: State) {
        snapshot = LifecycleSnapshot(phase: Self.phase(of: next), state: Self.state(of: next))
        if case let .running(run) = next { runNumber = run.number } else { runNumber = nil }
        current = next
    }

    /// The current state without its data.
    package var phase: OperationPhase { snapshot.phase }

    /// The state as callers see it.
    package var state: OperationState { snapshot.state }

    private static func phase(of state: State) -> OperationPhase {
        switch state {
        case .idle: return .idle
        case .running: return .running
        case .suspended: return .suspended
        case .postponed: return .postponed
        case .cancelledBeforeStart: return .cancelledBeforeStart
        case .finished: return .finished
        }
    }

    private static func state(of state: State) -> OperationState {
        switch state {
        case .idle: return .readyToStart
        case .running, .postponed: return .working
        case .suspended: return .suspended
        case .cancelledBeforeStart: return .cancelled
        case let .finished(final, _): return final
        }
    }

    /// The error the operation ended with; nil until it ends, and after a success.
    package var failure: Failure? {
        switch current {
        case let .cancelledBeforeStart(failure), let .finished(_, failure): return failure
        case .idle, .running, .suspended, .postponed: return nil
        }
    }

    /// Reads the run in progress (a field or two, without handing the caller a run of its own
    /// to release); nil unless `.running`.
    package func withRun<Result>(_ body: (borrowing Run) -> Result) -> Result? {
        switch current {
        case let .running(run): return body(run)
        case .idle, .suspended, .postponed, .cancelledBeforeStart, .finished: return nil
        }
    }

    /// Changes the data of the run in progress; returns nil (and changes nothing) unless
    /// `.running`.
    package mutating func updateRun<Result>(_ body: (inout Run) -> Result) -> Result? {
        guard case var .running(run) = current else { return nil }
        // Out of the enum while it changes, so the payload is not copied on write.
        current = .idle
        defer {
            runNumber = run.number
            current = .running(run)
        }
        return body(&run)
    }

    /// Replaces the run in progress with `run`: a retry sends a new transfer while the operation
    /// keeps running. Returns false (and changes nothing) unless `.running`.
    package mutating func replaceRun(with run: Run) -> Bool {
        guard phase == .running else { return false }
        leave(to: .running(run))
        return true
    }

    /// What `Operation.isExecuting` reports.
    package var isExecuting: Bool { snapshot.isExecuting }

    /// True while the operation is parked.
    package var isPostponed: Bool { phase == .postponed }

    /// What `Operation.isFinished` reports.
    package var isFinished: Bool { phase == .finished }

    /// `start()`: begins the first run; on a suspended operation it resumes with `run`.
    package mutating func start(_ run: @autoclosure () -> Run) -> Action {
        switch current {
        case .idle, .suspended:
            set(.running(run()))
            return .beginTransfer
        case let .cancelledBeforeStart(failure):
            set(.finished(.cancelled, failure))
            return .none
        case .running, .postponed, .finished:
            return .none
        }
    }

    /// `suspend()`: pauses a running transfer.
    package mutating func suspend() -> Action {
        guard phase == .running else { return .none }
        leave(to: .suspended)
        return .stopTransfer
    }

    /// `resume()`: continues a suspended operation with `run`.
    package mutating func resume(_ run: @autoclosure () -> Run) -> Action {
        guard phase == .suspended else { return .none }
        set(.running(run()))
        return .beginTransfer
    }

    /// `cancel()`: ends the operation as `.cancelled`, with `failure`, unless it already ended.
    package mutating func cancel(_ failure: @autoclosure () -> Failure?) -> Action {
        switch current {
        case .idle:
            set(.cancelledBeforeStart(failure()))
            return .none
        case .running:
            leave(to: .finished(.cancelled, failure()))
            return .stopTransferAndDiscard
        case .suspended:
            set(.finished(.cancelled, failure()))
            return .discard
        case .postponed:
            set(.finished(.cancelled, failure()))
            return .unpark
        case .cancelledBeforeStart, .finished:
            return .none
        }
    }

    /// The operation needs a fresh credential: park it until `replay()` or `abort()`.
    package mutating func postpone() -> Action {
        guard phase == .running else { return .none }
        leave(to: .postponed)
        return .park
    }

    /// A fresh credential exists: send the parked operation's request again, as `run`.
    package mutating func replay(_ run: @autoclosure () -> Run) -> Action {
        guard phase == .postponed else { return .none }
        set(.running(run()))
        return .beginTransfer
    }

    /// The transfer reported its end: a success without `failure`, else a failure with it.
    package mutating func transferFinished(failure: Failure?) -> Action {
        guard phase == .running else { return .none }
        leave(to: .finished(failure == nil ? .successFinished : .failedFinished, failure))
        return .complete
    }

    /// The operation itself gives up on a running, suspended or parked transfer (a deadline
    /// passed, a request could not be built, the credential refresh failed): it ends as
    /// `.failedFinished` with `failure`.
    package mutating func abort(_ failure: Failure) -> Action {
        switch current {
        case .running:
            leave(to: .finished(.failedFinished, failure))
            return .stopTransferAndDiscard
        case .suspended:
            set(.finished(.failedFinished, failure))
            return .discard
        case .postponed:
            set(.finished(.failedFinished, failure))
            return .unpark
        case .idle, .cancelledBeforeStart, .finished:
            return .none
        }
    }
}

/// What an operation machine runs: numbered, so that an event of an earlier run is told from
/// one of the current run without copying the run out of the state.
package protocol MachineRun: Sendable {
    /// The run's number, unique among its operation's runs.
    var number: UInt64 { get }
}

/// An operation machine's state without its data, to compare and to switch on cheaply.
package enum OperationPhase: Sendable, Equatable {
    case idle, running, suspended, postponed, cancelledBeforeStart, finished
}

/// What an operation's lifecycle looks like at one moment, without the data: cheap to keep and
/// compare (copying the machine would copy the run it carries).
package struct LifecycleSnapshot: Sendable, Equatable {
    /// The state without its data.
    package let phase: OperationPhase
    /// The state as callers see it.
    package let state: OperationState

    /// What `Operation.isExecuting` reports.
    package var isExecuting: Bool { phase == .running || phase == .suspended || phase == .postponed }
    /// What `Operation.isFinished` reports.
    package var isFinished: Bool { phase == .finished }
    /// True while parked.
    package var isPostponed: Bool { phase == .postponed }
}
