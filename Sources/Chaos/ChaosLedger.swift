import Foundation
import NetOps

/// What a chaos run knows about every operation it made: completions counted, waiters
/// outstanding, a weak reference for the leak check, and the set of operations still alive
/// that the agitators may disturb.
final class ChaosLedger: @unchecked Sendable {
    struct Entry {
        let label: String
        let topLevel: Bool
        weak var operation: Operation?
        var completions = 0
        var finalState: String?
        var waiting = false
    }

    private let lock = NSLock()
    private var entries: [Entry] = []
    private var live: [Operation] = []
    private var liveIndex: [ObjectIdentifier: Int] = [:]
    private var events = 0
    private var expectedFiles: Set<String> = []
    private var corruptFiles: [String] = []
    private var circuitRefusals = 0

    /// Records `operation` and returns its id.
    func register(_ operation: Operation, label: String, topLevel: Bool) -> Int {
        lock.withLock {
            entries.append(Entry(label: label, topLevel: topLevel, operation: operation))
            liveIndex[ObjectIdentifier(operation)] = live.count
            live.append(operation)
            return entries.count - 1
        }
    }

    /// Counts one call of the completion of operation `id`, which ended in `state`.
    func completed(_ id: Int, operation: Operation, state: String) {
        lock.withLock {
            entries[id].completions += 1
            entries[id].finalState = state
            events += 1
            let key = ObjectIdentifier(operation)
            if let index = liveIndex.removeValue(forKey: key) {
                let last = live.removeLast()
                if index < live.count {
                    live[index] = last
                    liveIndex[ObjectIdentifier(last)] = index
                }
            }
        }
    }

    /// An operation ended with `circuitOpen`: an open circuit refused it without a request.
    func recordCircuitRefusal() {
        lock.withLock { circuitRefusals += 1 }
    }

    /// A download succeeded: its file named `name` belongs in the download folder.
    func expectFile(_ name: String) {
        lock.withLock { _ = expectedFiles.insert(name) }
    }

    /// A successful download's file is not the payload its route serves.
    func recordCorruptFile(_ line: String) {
        lock.withLock { corruptFiles.append(line) }
    }

    /// The names in `listing` that no successful download accounts for.
    func unexpectedFiles(in listing: [String]) -> [String] {
        lock.withLock { listing.filter { !expectedFiles.contains($0) } }
    }

    /// A thread entered `syncStart()` or a task entered `await` for operation `id`.
    func waiterEntered(_ id: Int) {
        lock.withLock { entries[id].waiting = true }
    }

    /// That waiter returned.
    func waiterReturned(_ id: Int) {
        lock.withLock {
            entries[id].waiting = false
            events += 1
        }
    }

    /// A random operation that has not completed yet, if any.
    func randomLive(using generator: inout SeededGenerator) -> Operation? {
        lock.withLock { live.isEmpty ? nil : live[Int(generator.next() % UInt64(live.count))] }
    }

    /// Completions and returned waiters so far: the watchdog's measure of progress.
    var progress: Int { lock.withLock { events } }

    /// True when every operation completed and every waiter returned.
    var allSettled: Bool {
        lock.withLock { entries.allSatisfy { $0.completions > 0 && !$0.waiting } }
    }

    /// Operations still referenced from somewhere.
    var aliveCount: Int { lock.withLock { entries.reduce(0) { $0 + ($1.operation == nil ? 0 : 1) } } }

    /// Fills the counting figures of `report` and lists up to 50 stuck or leaked operations.
    func fill(_ report: inout ChaosReport, leakCheck: Bool) {
        lock.withLock {
            var lines: [String] = corruptFiles.prefix(20).map { "corrupt download: \($0)" }
            report.corruptFiles = corruptFiles.count
            report.circuitRefusals = circuitRefusals
            for entry in entries {
                if entry.topLevel {
                    report.ops += 1
                    if entry.completions > 0, let state = entry.finalState {
                        report.final += 1
                        report.states[state, default: 0] += 1
                    }
                } else {
                    report.subOperations += 1
                }
                if entry.completions > 1 {
                    report.doubleCompletions += 1
                    lines.append("\(entry.label): completion ran \(entry.completions) times")
                }
                if entry.completions == 0 || entry.waiting {
                    report.hung += 1
                    let now = entry.operation.map(Self.state(of:)) ?? "released"
                    let why = entry.completions == 0 ? "never completed" : "its waiter never returned"
                    lines.append("\(entry.label): \(why), state \(now)")
                } else if leakCheck, let operation = entry.operation {
                    report.leaked += 1
                    lines.append("\(entry.label): still alive after the run (\(Self.state(of: operation)))")
                }
            }
            report.stuck = Array(lines.prefix(50))
        }
    }

    /// The state of any NetOps operation in words.
    static func state(of operation: Operation) -> String {
        if let base = operation as? BaseOperation { return base.stateDescription }
        if let group = operation as? any ChaosGroup { return group.chaosStateDescription }
        return operation.isFinished ? "finished" : operation.isExecuting ? "executing" : "not started"
    }
}

/// A `GroupOperation` of any result type, as the ledger reads it.
protocol ChaosGroup {
    var chaosStateDescription: String { get }
}

extension GroupOperation: ChaosGroup {
    var chaosStateDescription: String { stateDescription }
}
