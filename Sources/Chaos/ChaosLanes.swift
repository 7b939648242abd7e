import Foundation
import NetOps

/// The three ways a chaos run starts its operations, side by side: `OperationQueue`s fed by a
/// thread each, tasks that `await run()`, and threads that block in `syncStart()`.
final class ChaosLanes: @unchecked Sendable {
    static let queueWidth = 12
    static let awaitWorkers = 16
    static let syncThreads = 4

    private let factory: ChaosFactory
    private let ledger: ChaosLedger
    private let queues: [OperationQueue]
    private let queued: [[PlannedOperation]]
    private let awaited: [PlannedOperation]
    private let synchronous: [PlannedOperation]

    private let lock = NSLock()
    private var nextAwaited = 0
    private var nextSynchronous = 0
    private var workersLeft = 0
    private var made = 0

    init(plan: ChaosPlan, factory: ChaosFactory, ledger: ChaosLedger) {
        self.factory = factory
        self.ledger = ledger
        queues = (0..<ChaosPlan.queueCount).map { index in
            let queue = OperationQueue()
            queue.name = "chaos-\(index)"
            queue.maxConcurrentOperationCount = Self.queueWidth
            return queue
        }
        queued = (0..<ChaosPlan.queueCount).map { index in plan.operations.filter { $0.lane == .queue(index) } }
        awaited = plan.operations.filter { $0.lane == .await }
        synchronous = plan.operations.filter { $0.lane == .sync }
    }

    /// Operations made so far.
    var started: Int { lock.withLock { made } }

    /// True when every lane handed out all its work and every queue is empty.
    var isDrained: Bool {
        lock.withLock { workersLeft == 0 } && queues.allSatisfy { $0.operationCount == 0 }
    }

    /// Starts every lane; returns at once.
    func start() {
        lock.withLock { workersLeft = queues.count + Self.awaitWorkers + Self.syncThreads }
        for (queue, work) in zip(queues, queued) {
            Thread { [self] in
                feed(queue, with: work)
                workerEnded()
            }.start()
        }
        for _ in 0..<Self.awaitWorkers {
            Task { [self] in
                while let planned = take(from: awaited, cursor: \.nextAwaited) {
                    let work = make(planned)
                    ledger.waiterEntered(work.id)
                    await work.run()
                    ledger.waiterReturned(work.id)
                }
                workerEnded()
            }
        }
        for _ in 0..<Self.syncThreads {
            Thread { [self] in
                while let planned = take(from: synchronous, cursor: \.nextSynchronous) {
                    let work = make(planned)
                    ledger.waiterEntered(work.id)
                    work.syncStart()
                    ledger.waiterReturned(work.id)
                }
                workerEnded()
            }.start()
        }
    }

    private func feed(_ queue: OperationQueue, with work: [PlannedOperation]) {
        for planned in work {
            while queue.operationCount >= Self.queueWidth * 2 { usleep(1_000) }
            queue.addOperation(make(planned).operation)
        }
    }

    private func make(_ planned: PlannedOperation) -> ChaosWork {
        let work = factory.make(planned)
        lock.withLock { made += 1 }
        return work
    }

    private func take(from list: [PlannedOperation], cursor: ReferenceWritableKeyPath<ChaosLanes, Int>) -> PlannedOperation? {
        lock.withLock {
            let index = self[keyPath: cursor]
            guard index < list.count else { return nil }
            self[keyPath: cursor] = index + 1
            return list[index]
        }
    }

    private func workerEnded() {
        lock.withLock { workersLeft -= 1 }
    }
}
