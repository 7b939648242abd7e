import Foundation
import NetOps

/// Counts each call of a soak run when it starts and each time it ends (its completion
/// handlers ran), and how it ended. Its storage is allocated whole before the first call, so
/// it does not grow while the run's memory is measured.
final class SoakLedger: Sendable {
    private struct State {
        /// Times each call's completion ran, by call number (saturating at 255).
        var ends: [UInt8]
        var started = 0
        /// The calls whose `run()` or `finished()` has not returned yet (at most the concurrency).
        var waiting: Set<Int> = []
        var ended = 0
        /// Ends by outcome (`ok`, `cancelled`, `circuit-open`, `http 503`, …): a bounded set.
        var outcomes: [String: Int] = [:]
        /// A few descriptions of failures outside the expected ones, to read.
        var unexpected: [String] = []
    }

    private let state: Locked<State>
    /// One call in `sampling` is watched by a weak reference: after the run, the ones still alive
    /// were kept by something.
    static let sampling = 100
    private let watched: [Locked<WatchedOperation>]

    /// A ledger for calls numbered `0..<calls`.
    init(calls: Int) {
        watched = (0..<(calls + Self.sampling - 1) / Self.sampling).map { _ in Locked(WatchedOperation()) }
        state = Locked(State(ends: [UInt8](repeating: 0, count: calls)))
        state.withLock { state in
            state.outcomes.reserveCapacity(32)
            state.waiting.reserveCapacity(1_024)
        }
    }

    /// Call `index` is about to start, as `operation`.
    func started(_ index: Int, _ operation: BaseOperation) {
        if index % Self.sampling == 0 { watched[index / Self.sampling].withLock { $0.operation = operation } }
        state.withLock { state in
            state.started += 1
            state.waiting.insert(index)
        }
    }

    /// The `run()` or `finished()` that awaited call `index` returned.
    func returned(_ index: Int) {
        state.withLock { _ = $0.waiting.remove(index) }
    }

    /// Call `index` ended (its completion ran), as `operation` says.
    func ended(_ index: Int, _ operation: BaseOperation) {
        let outcome = Self.outcome(of: operation)
        let detail = outcome == "other" ? operation.error.map { "\($0)" } : nil
        state.withLock { state in
            if state.ends[index] == 0 { state.ended += 1 }
            state.ends[index] &+= state.ends[index] == .max ? 0 : 1
            state.outcomes[outcome, default: 0] += 1
            if let detail, state.unexpected.count < 5 { state.unexpected.append(detail) }
        }
    }

    /// Calls started and calls that ended at least once, so far.
    var progress: (started: Int, ended: Int) { state.withLock { ($0.started, $0.ended) } }

    /// Calls of `range` that never ended (their completion never ran, or their waiter never
    /// returned), and those that ended more than once.
    func lost(in range: Range<Int>) -> (neverEnded: Int, endedTwice: Int) {
        state.withLock { state in
            var never = 0
            var twice = 0
            for index in range {
                if state.ends[index] == 0 || state.waiting.contains(index) { never += 1 } else if state.ends[index] > 1 { twice += 1 }
            }
            return (never, twice)
        }
    }

    /// The watched operations still alive, of those watched.
    var watchedAlive: (alive: Int, watched: Int) {
        (watched.reduce(0) { $0 + ($1.withLock { $0.operation } == nil ? 0 : 1) }, watched.count)
    }

    /// Ends by outcome, and the failures outside the expected ones.
    var outcomes: (counts: [String: Int], unexpected: [String]) { state.withLock { ($0.outcomes, $0.unexpected) } }

    /// How `operation` ended, in a word or two.
    private static func outcome(of operation: BaseOperation) -> String {
        guard let error = operation.error else { return "ok" }
        switch error.kind {
        case .cancelled: return "cancelled"
        case .circuitOpen: return "circuit-open"
        case let .httpStatus(status): return "http \(status)"
        case .deadlineExceeded: return "deadline"
        default: return "other"
        }
    }
}

/// A weak reference to one operation of a soak run.
private struct WatchedOperation {
    weak var operation: BaseOperation?
}
