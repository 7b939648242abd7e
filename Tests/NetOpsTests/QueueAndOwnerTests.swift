import Foundation
import TestSupport
import Testing

@testable import NetOps

/// Operations in `OperationQueue`s: limits, dependencies, deallocation, owner cancellation.
/// (Five minutes: waiting for the process gate counts against the limit.)
@Suite(.timeLimit(.minutes(5)))
struct QueueAndOwnerTests {
    final class WeakBox: @unchecked Sendable {
        private let lock = NSLock()
        private var references: [() -> AnyObject?] = []
        func add(_ object: AnyObject) {
            lock.withLock { references.append { [weak object] in object } }
        }
        var alive: Int { lock.withLock { references.filter { $0() != nil }.count } }
    }

    /// Exclusive: a thousand requests keep the process's one URLSession queue (or the NIO
    /// engine) and both cores busy for seconds.
    @Test(.processGate(.exclusive), arguments: TestEngine.allCases)
    func thousandOperationsThroughALimitedQueueFinishAndDeallocate(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("json")
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 8
        let weak = WeakBox()
        let succeeded = Counter()
        let concurrent = Counter()
        let peak = Locked(0)
        let running = Locked(0)
        do {
            for _ in 0..<1_000 {
                let operation = DTO.get(url).on(engine)
                    .onStateChange { _, state in
                        if state == .working {
                            let now = running.withLock { value -> Int in
                                value += 1
                                return value
                            }
                            peak.withLock { $0 = max($0, now) }
                        }
                    }
                    .onCompletion { operation in
                        running.withLock { $0 -= 1 }
                        if operation.state == .successFinished { succeeded.increment() }
                        concurrent.increment()
                    }
                weak.add(operation)
                queue.addOperation(operation)
            }
        }
        #expect(await eventually(within: 60) { queue.operationCount == 0 })
        #expect(succeeded.value == 1_000)
        #expect(peak.withLock { $0 } <= 8)
        #expect(await eventually { weak.alive == 0 }, "operations leaked: \(weak.alive)")
    }

    @Test(arguments: TestEngine.allCases) func dependenciesRunInOrder(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("json")
        let order = Recorder<Int>()
        let operations = (0..<4).map { index in DTO.get(url).on(engine).onCompletion { _ in order.append(index) } }
        for index in 1..<operations.count { operations[index].addDependency(operations[index - 1]) }
        let queue = OperationQueue()
        for operation in operations.reversed() { queue.addOperation(operation) }
        // Awaited, not polled against a deadline: four requests in a row may take seconds on a
        // loaded machine; a hang is the suite's time limit's to catch.
        for operation in operations { await operation.finished() }
        #expect(await eventually { queue.operationCount == 0 })
        #expect(order.all == [0, 1, 2, 3])
        #expect(operations.allSatisfy { $0.state == .successFinished })
    }

    @Test(arguments: TestEngine.allCases) func cancelByOwnerIdentity(_ engine: TestEngine) async throws {
        final class Screen {}
        let screen = Screen()
        let other = Screen()
        // Answered after a minute: none of them ends before the cancel, however late this task runs.
        let url = try await TestServer.url("delay?seconds=60")
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 2
        let mine = (0..<6).map { _ in DTO.get(url).on(engine) }
        let theirs = (0..<2).map { _ in DTO.get(url).on(engine) }
        for operation in mine { operation.owner = screen }
        for operation in theirs { operation.owner = other }
        for operation in mine + theirs { queue.addOperation(operation) }
        #expect(await eventually { mine.contains { $0.state == .working } })

        #expect(BaseOperation.cancelAllOperations(ownedBy: screen, in: queue) == 6)
        #expect(mine.allSatisfy { $0.state == .cancelled })
        #expect(theirs.allSatisfy { $0.state != .cancelled })
        for operation in theirs { operation.cancel() }
        #expect(await eventually { queue.operationCount == 0 })
    }

    @Test(arguments: TestEngine.allCases) func cancelByOwnerIDWithoutAQueue(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("delay?seconds=5")
        // Without a queue the call looks at every operation of the process: the IDs are unique
        // to this test case, as other tests (and this test's other engine) run side by side.
        let ownerID = "request-\(UUID().uuidString)"
        let tagged = (0..<3).map { _ in DTO.get(url).on(engine) }
        let untagged = DTO.get(url).on(engine)
        for operation in tagged { operation.ownerID = ownerID }
        untagged.ownerID = ownerID + "-other"
        for operation in tagged + [untagged] { operation.start() }
        // Equal strings, different objects: string equality is what counts.
        let sameID = String(ownerID.prefix(8)) + String(ownerID.dropFirst(8))
        #expect(BaseOperation.cancelAllOperations(ownerID: sameID) == 3)
        #expect(tagged.allSatisfy { $0.state == .cancelled })
        #expect(untagged.state == .working)
        untagged.cancel()
    }

    @Test(arguments: TestEngine.allCases) func ownerIsWeak(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("json")).on(engine)
        do {
            let owner = NSObject()
            operation.owner = owner
            #expect(operation.owner === owner)
        }
        #expect(operation.owner == nil)
    }

    @Test(arguments: TestEngine.allCases) func retainAndStartKeepsTheOperationAlive(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("delay?seconds=0.2")
        let done = Counter()
        let weak = WeakBox()
        do {
            let operation = DTO.get(url).on(engine).onCompletion { _ in done.increment() }
            weak.add(operation)
            operation.retainAndStart()
        }
        #expect(weak.alive == 1)
        #expect(await eventually { done.value == 1 })
        #expect(await eventually { weak.alive == 0 })
    }
}
