import Testing

@testable import NetOps

/// Every transition of `OperationStateMachine`: each event from each state.
struct OperationStateMachineTests {
    /// Runs carry a number, failures a string: enough to see that the states keep their data.
    typealias Machine = OperationStateMachine<Int, String>

    enum Event: String, Sendable, CaseIterable {
        case start, suspend, resume, cancel, succeed, fail, abort, postpone, replay

        /// Each event that enters `.running` hands it a run numbered `run`; each that ends the
        /// machine hands it a failure naming the event.
        func apply(to machine: inout Machine, run: Int = 0) -> Machine.Action {
            switch self {
            case .start: return machine.start(run)
            case .suspend: return machine.suspend()
            case .resume: return machine.resume(run)
            case .cancel: return machine.cancel("cancel")
            case .succeed: return machine.transferFinished(failure: nil)
            case .fail: return machine.transferFinished(failure: "fail")
            case .abort: return machine.abort("abort")
            case .postpone: return machine.postpone()
            case .replay: return machine.replay(run)
            }
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        /// Events that bring a new machine to the starting state.
        let path: [Event]
        let event: Event
        let action: Machine.Action
        let state: OperationState
        let executing: Bool
        let finished: Bool

        var testDescription: String {
            "\(path.map(\.rawValue).joined(separator: "→")) + \(event.rawValue) ⇒ \(state)"
        }
    }

    static let idle: [Event] = []
    static let running: [Event] = [.start]
    static let suspended: [Event] = [.start, .suspend]
    static let cancelledEarly: [Event] = [.cancel]
    static let postponed: [Event] = [.start, .postpone]
    static let succeeded: [Event] = [.start, .succeed]
    static let failed: [Event] = [.start, .fail]
    static let cancelled: [Event] = [.start, .cancel]

    static let cases: [Case] =
        [
            // idle
            Case(path: idle, event: .start, action: .beginTransfer, state: .working, executing: true, finished: false),
            Case(path: idle, event: .suspend, action: .none, state: .readyToStart, executing: false, finished: false),
            Case(path: idle, event: .resume, action: .none, state: .readyToStart, executing: false, finished: false),
            Case(path: idle, event: .cancel, action: .none, state: .cancelled, executing: false, finished: false),
            Case(path: idle, event: .succeed, action: .none, state: .readyToStart, executing: false, finished: false),
            Case(path: idle, event: .fail, action: .none, state: .readyToStart, executing: false, finished: false),
            Case(path: idle, event: .abort, action: .none, state: .readyToStart, executing: false, finished: false),
            Case(path: idle, event: .postpone, action: .none, state: .readyToStart, executing: false, finished: false),
            Case(path: idle, event: .replay, action: .none, state: .readyToStart, executing: false, finished: false),
            // running
            Case(path: running, event: .start, action: .none, state: .working, executing: true, finished: false),
            Case(path: running, event: .suspend, action: .stopTransfer, state: .suspended, executing: true, finished: false),
            Case(path: running, event: .resume, action: .none, state: .working, executing: true, finished: false),
            Case(path: running, event: .cancel, action: .stopTransferAndDiscard, state: .cancelled, executing: false, finished: true),
            Case(path: running, event: .succeed, action: .complete, state: .successFinished, executing: false, finished: true),
            Case(path: running, event: .fail, action: .complete, state: .failedFinished, executing: false, finished: true),
            Case(path: running, event: .abort, action: .stopTransferAndDiscard, state: .failedFinished, executing: false, finished: true),
            Case(path: running, event: .postpone, action: .park, state: .working, executing: true, finished: false),
            Case(path: running, event: .replay, action: .none, state: .working, executing: true, finished: false),
            // suspended
            Case(path: suspended, event: .start, action: .beginTransfer, state: .working, executing: true, finished: false),
            Case(path: suspended, event: .suspend, action: .none, state: .suspended, executing: true, finished: false),
            Case(path: suspended, event: .resume, action: .beginTransfer, state: .working, executing: true, finished: false),
            Case(path: suspended, event: .cancel, action: .discard, state: .cancelled, executing: false, finished: true),
            Case(path: suspended, event: .succeed, action: .none, state: .suspended, executing: true, finished: false),
            Case(path: suspended, event: .fail, action: .none, state: .suspended, executing: true, finished: false),
            Case(path: suspended, event: .abort, action: .discard, state: .failedFinished, executing: false, finished: true),
            Case(path: suspended, event: .postpone, action: .none, state: .suspended, executing: true, finished: false),
            Case(path: suspended, event: .replay, action: .none, state: .suspended, executing: true, finished: false),
            // postponed (parked): replayed, cancelled or failed as a whole; nothing else moves it
            Case(path: postponed, event: .start, action: .none, state: .working, executing: true, finished: false),
            Case(path: postponed, event: .suspend, action: .none, state: .working, executing: true, finished: false),
            Case(path: postponed, event: .resume, action: .none, state: .working, executing: true, finished: false),
            Case(path: postponed, event: .cancel, action: .unpark, state: .cancelled, executing: false, finished: true),
            Case(path: postponed, event: .succeed, action: .none, state: .working, executing: true, finished: false),
            Case(path: postponed, event: .fail, action: .none, state: .working, executing: true, finished: false),
            Case(path: postponed, event: .abort, action: .unpark, state: .failedFinished, executing: false, finished: true),
            Case(path: postponed, event: .postpone, action: .none, state: .working, executing: true, finished: false),
            Case(path: postponed, event: .replay, action: .beginTransfer, state: .working, executing: true, finished: false),
            // cancelled before start: only start() changes anything (it lets isFinished be posted)
            Case(path: cancelledEarly, event: .start, action: .none, state: .cancelled, executing: false, finished: true),
            Case(path: cancelledEarly, event: .suspend, action: .none, state: .cancelled, executing: false, finished: false),
            Case(path: cancelledEarly, event: .resume, action: .none, state: .cancelled, executing: false, finished: false),
            Case(path: cancelledEarly, event: .cancel, action: .none, state: .cancelled, executing: false, finished: false),
            Case(path: cancelledEarly, event: .succeed, action: .none, state: .cancelled, executing: false, finished: false),
            Case(path: cancelledEarly, event: .fail, action: .none, state: .cancelled, executing: false, finished: false),
            Case(path: cancelledEarly, event: .abort, action: .none, state: .cancelled, executing: false, finished: false),
            Case(path: cancelledEarly, event: .postpone, action: .none, state: .cancelled, executing: false, finished: false),
            Case(path: cancelledEarly, event: .replay, action: .none, state: .cancelled, executing: false, finished: false),
        ] + finalStateCases

    /// Nothing moves a final state.
    static let finalStateCases: [Case] = [
        (succeeded, OperationState.successFinished), (failed, .failedFinished), (cancelled, .cancelled),
    ].flatMap { path, state in
        Event.allCases.map { event in
            Case(path: path, event: event, action: .none, state: state, executing: false, finished: true)
        }
    }

    @Test(arguments: cases)
    func transition(_ testCase: Case) {
        var machine = Machine()
        for event in testCase.path { _ = event.apply(to: &machine) }
        let action = testCase.event.apply(to: &machine)
        #expect(action == testCase.action)
        #expect(machine.state == testCase.state)
        #expect(machine.isExecuting == testCase.executing)
        #expect(machine.isFinished == testCase.finished)
    }

    /// A run lives in `.running` only, and the run a resumption or replay brings replaces the
    /// one before; the error is the one of the event that ended the machine, and no later event
    /// changes it.
    /// The run in progress, read the way operations read it; the number kept beside the state
    /// (`runNumber`, what operations compare events against) must name that same run.
    static func run(of machine: Machine) -> Int? {
        let run = machine.withRun { copy $0 }
        #expect(machine.runNumber == run.map(UInt64.init))
        return run
    }

    @Test func statesCarryTheirRunAndTheirFailure() {
        var machine = Machine()
        #expect(Self.run(of: machine) == nil)
        _ = machine.start(1)
        #expect(Self.run(of: machine) == 1)
        let updated = machine.updateRun { run -> Bool in
            run += 10
            return true
        }
        #expect(updated == true)
        #expect(Self.run(of: machine) == 11)
        let replaced = machine.replaceRun(with: 2)
        #expect(replaced)
        #expect(Self.run(of: machine) == 2)
        _ = machine.suspend()
        #expect(Self.run(of: machine) == nil)
        let updatedWhileSuspended = machine.updateRun { run -> Bool in
            run += 1
            return true
        }
        #expect(updatedWhileSuspended == nil)
        let replacedWhileSuspended = machine.replaceRun(with: 5)
        #expect(!replacedWhileSuspended)
        _ = machine.resume(3)
        #expect(Self.run(of: machine) == 3)
        _ = machine.postpone()
        #expect(Self.run(of: machine) == nil)
        #expect(machine.failure == nil)
        _ = machine.replay(4)
        #expect(Self.run(of: machine) == 4)
        _ = machine.abort("deadline")
        #expect(Self.run(of: machine) == nil)
        #expect(machine.failure == "deadline")
        #expect(machine.state == .failedFinished)
        _ = machine.cancel("late cancel")
        _ = machine.transferFinished(failure: nil)
        #expect(machine.failure == "deadline")
    }

    /// A machine cancelled before it started keeps its error through the `start()` that ends it.
    @Test func cancelledBeforeStartKeepsItsFailure() {
        var machine = Machine()
        _ = machine.cancel("cancelled early")
        #expect(machine.failure == "cancelled early")
        let action = machine.start(1)
        #expect(action == .none)
        #expect(machine.phase == .finished)
        #expect(machine.failure == "cancelled early")
        #expect(Self.run(of: machine) == nil)
    }

    /// A success ends without an error.
    @Test func successHasNoFailure() {
        var machine = Machine()
        _ = machine.start(1)
        let action = machine.transferFinished(failure: nil)
        #expect(action == .complete)
        #expect(machine.state == .successFinished)
        #expect(machine.failure == nil)
    }

    @Test func everyStateAndEventIsCovered() {
        let starts = Set(Self.cases.map { $0.path.map(\.rawValue).joined(separator: ",") })
        #expect(starts.count == 8)
        for start in starts {
            let events = Set(Self.cases.filter { $0.path.map(\.rawValue).joined(separator: ",") == start }.map(\.event))
            #expect(events.count == Event.allCases.count, "state reached by [\(start)] misses events")
        }
    }

    @Test func stateDescriptionsAndPredicates() {
        #expect(OperationState.readyToStart.isWorkingOrInProcess)
        #expect(OperationState.suspended.isWorkingOrInProcess)
        #expect(OperationState.cancelled.isFinishedOrCancelled)
        #expect(OperationState.failedFinished.isFinishedOrCancelled)
        #expect(Set(OperationState.allCases.map(\.description)).count == OperationState.allCases.count)
    }
}

/// The tests' runs are plain numbers.
extension Int: MachineRun {
    /// The run itself.
    public var number: UInt64 { UInt64(self) }
}
