/// Hands the end of an awaited operation's transfer to the task that awaits it.
///
/// An operation whose end does work that must not run on the thread the transfer ended on (an
/// event loop, URLSession's delegate queue) — APILayer's parse, validate and map, a completion
/// of its own that never blocks — used to go through a dispatch queue (`CompletionQueue`) and
/// then resume the awaiting task: two thread hand-offs. With a relay, the engine resumes the
/// awaiting task with the end, and the task carries it out on the cooperative pool: one
/// hand-off, the one the task's resumption costs anyway, as AsyncHTTPClient's async API has it.
///
/// `run()` installs a relay before it starts the operation and drains it until the operation is
/// final: an end that starts another transfer (a retry, a redirect the chain follows, a replay
/// after a token refresh) comes through the same relay again. Once the task has left, the relay
/// is closed and refuses work, which then goes to `CompletionQueue` as before; work accepted
/// before that is carried out before `run()` returns, so no end is lost.
package final class EndRelay: Sendable {
    /// What the awaiting task does next.
    enum Next: Sendable {
        /// Carry out the end of a transfer.
        case work(@Sendable () -> Void)
        /// The operation is final: return.
        case final
    }

    private struct State {
        var pending: [@Sendable () -> Void] = []
        var waiting: CheckedContinuation<Next, Never>?
        var isFinal = false
        var isClosed = false
    }

    private let state = Locked(State())

    init() {}

    /// Hands `work` to the awaiting task; false when the task has left (the caller then runs
    /// it elsewhere).
    package func deliver(_ work: @escaping @Sendable () -> Void) -> Bool {
        let (accepted, waiting) = state.withLock { state -> (Bool, CheckedContinuation<Next, Never>?) in
            if state.isClosed { return (false, nil) }
            if let waiting = state.waiting {
                state.waiting = nil
                return (true, waiting)
            }
            state.pending.append(work)
            return (true, nil)
        }
        waiting?.resume(returning: .work(work))
        return accepted
    }

    /// The operation is final: the awaiting task returns once it has carried out what came
    /// before.
    func finish() {
        let waiting = state.withLock { state -> CheckedContinuation<Next, Never>? in
            state.isFinal = true
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume(returning: .final)
    }

    /// The next thing to do if it is known already (an end delivered, or the return once the
    /// operation is final), without suspending; nil when the task must wait for it (`next()`).
    func take() -> Next? {
        state.withLock { Self.take(from: &$0) }
    }

    /// The next thing to do: an end delivered, or the return once the operation is final.
    func next() async -> Next {
        await withCheckedContinuation { (continuation: CheckedContinuation<Next, Never>) in
            let now = state.withLock { state -> Next? in
                if let now = Self.take(from: &state) { return now }
                state.waiting = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    private static func take(from state: inout State) -> Next? {
        if !state.pending.isEmpty { return .work(state.pending.removeFirst()) }
        if state.isFinal { return .final }
        return nil
    }

    /// Refuses work from now on; returns what was accepted and not yet carried out.
    func close() -> [@Sendable () -> Void] {
        state.withLock { state in
            state.isClosed = true
            defer { state.pending = [] }
            return state.pending
        }
    }
}
