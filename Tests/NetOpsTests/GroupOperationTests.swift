import Dispatch
import Foundation
import TestSupport
import Testing

@testable import NetOps

/// Group operations against DemoServer: sync and async bodies, nesting, queues, failure
/// policies, the combinators, and cancellation reaching the innermost running operation.
/// (Five minutes: waiting for the process gate counts against the limit.)
@Suite(.timeLimit(.minutes(5)))
struct GroupOperationTests {
    // MARK: Bodies

    @Test(arguments: TestEngine.allCases) func syncBodyCombinesTwoDataOperations(_ engine: TestEngine) async throws {
        let json = try await TestServer.url("json")
        let bytes = try await TestServer.url("bytes/1000")
        let group = GO<Int>(sync: { _ in
            let first = DTO.get(json).on(engine).syncStart()
            let second = DTO.get(bytes).on(engine).syncStart()
            return first.receivedData.count + second.receivedData.count
        })
        let expected = try await DTO.get(json).on(engine).run().receivedData.count + 1000
        let total = try await group.run()
        #expect(total == expected)
        #expect(group.result == expected)
        #expect(group.state == .successFinished)
        #expect(group.error == nil)
        #expect(group.isFinished && !group.isExecuting)
    }

    @Test(arguments: TestEngine.allCases) func syncStartOfASyncBodyGroupOnAThread(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("bytes/2048")
        let counts = Recorder<Int?>()
        await onThreads(2) { _ in
            let group = GO<Int>(sync: { context in
                try context.syncRun(DTO.get(url).on(engine)).receivedData.count
            }).syncStart()
            counts.append(group.result)
        }
        #expect(counts.all == [2048, 2048])
    }

    @Test(arguments: TestEngine.allCases) func asyncBodyAwaitsOperations(_ engine: TestEngine) async throws {
        let json = try await TestServer.url("json")
        let bytes = try await TestServer.url("bytes/4096")
        let group = GO<[Int]> { context in
            async let first = context.run(DTO.get(json).on(engine))
            async let second = context.run(DTO.get(bytes).on(engine))
            return try await [first.receivedData.count, second.receivedData.count]
        }
        let counts = try await group.run()
        #expect(counts[0] > 0)
        #expect(counts[1] == 4096)
        #expect(group.state == .successFinished)
    }

    @Test(arguments: TestEngine.allCases) func nestsThreeLevelsMixingBodies(_ engine: TestEngine) async throws {
        let url = { (size: Int) in try await TestServer.url("bytes/\(size)") }
        let (small, medium, large) = (try await url(10), try await url(100), try await url(1000))
        let outer = GO<Int> { context in
            let middle = GO<Int>(sync: { context in
                let inner = GO<Int> { context in
                    try await context.run(DTO.get(large).on(engine)).receivedData.count
                }
                let innerCount = try context.syncRun(inner)
                return innerCount + DTO.get(medium).on(engine).syncStart().receivedData.count
            })
            let middleCount = try await context.run(middle)
            return middleCount + (try await context.run(DTO.get(small).on(engine)).receivedData.count)
        }
        #expect(try await outer.run() == 1110)
    }

    @Test(arguments: TestEngine.allCases) func inAQueueAfterADependency(_ engine: TestEngine) async throws {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 2
        let first = DTO.get(try await TestServer.url("bytes/321")).on(engine)
        let bytes = try await TestServer.url("bytes/1000")
        let group = GO<Int>(sync: { _ in
            // The dependency has ended before the group starts.
            first.receivedData.count + DTO.get(bytes).on(engine).syncStart().receivedData.count
        })
        group.addDependency(first)
        queue.addOperation(group)
        queue.addOperation(first)
        await group.finished()
        #expect(first.state == .successFinished)
        #expect(group.result == 1321)
        #expect(await eventually { queue.operationCount == 0 })
        #expect(group.isFinished)
    }

    // MARK: Failure policies

    @Test(arguments: TestEngine.allCases) func failingChildFailsTheGroupByDefault(_ engine: TestEngine) async throws {
        let failing = try await TestServer.url("status/500")
        let slowURL = try await TestServer.url("delay?seconds=60")
        let slow = DTO.get(slowURL).on(engine)
        let group = GO<String>(sync: { _ in
            slow.start()
            _ = DTO.get(failing).on(engine).syncStart()
            return "ignored"
        })
        await #expect(throws: NetOpsError.self) { try await group.run() }
        #expect(group.state == .failedFinished)
        #expect((group.error as? NetOpsError)?.httpStatus == 500)
        #expect(group.result == nil)
        #expect(group.failures.count == 1)
        #expect(await eventually { slow.state == .cancelled }, "the sibling still running is cancelled")
    }

    @Test(arguments: TestEngine.allCases) func awaitedChildFailureFailsAnAsyncGroup(_ engine: TestEngine) async throws {
        let failing = try await TestServer.url("status/404")
        let ranAfter = Locked(false)
        let group = GO<Int> { context in
            try await context.run(DTO.get(failing).on(engine))
            ranAfter.withLock { $0 = true }
            return 1
        }
        await #expect(throws: NetOpsError.self) { try await group.run() }
        #expect((group.error as? NetOpsError)?.httpStatus == 404)
        #expect(!ranAfter.withLock { $0 })
    }

    @Test(arguments: TestEngine.allCases) func collectsPartialResults(_ engine: TestEngine) async throws {
        let json = try await TestServer.url("json")
        let missing = try await TestServer.url("status/404")
        let group = GO<(Int, Int)>(
            policy: .collectPartialResults,
            sync: { context in
                let good = DTO.get(json).on(engine).syncStart()
                _ = DTO.get(missing).on(engine).syncStart()
                let alsoGood = DTO.get(json).on(engine).syncStart()
                return (good.receivedData.count + alsoGood.receivedData.count, context.failures.count)
            })
        let (bytes, failureCount) = try await group.run()
        #expect(bytes > 0)
        #expect(failureCount == 1)
        #expect(group.state == .successFinished)
        #expect(group.failures.count == 1)
        #expect((group.failures.first?.error as? NetOpsError)?.httpStatus == 404)
    }

    @Test(arguments: TestEngine.allCases) func aFailingNestedGroupFailsItsParent(_ engine: TestEngine) async throws {
        let failing = try await TestServer.url("status/503")
        let outer = GO<Int> { context in
            let inner = GO<Int>(
                policy: .collectPartialResults,
                sync: { context in
                    _ = DTO.get(failing).on(engine).syncStart()
                    throw context.failures.first?.error ?? GroupError.cancelled
                })
            inner.start()
            await inner.finished()
            return 1
        }
        await #expect(throws: NetOpsError.self) { try await outer.run() }
        #expect((outer.error as? NetOpsError)?.httpStatus == 503)
    }

    // MARK: Combinators

    @Test(arguments: TestEngine.allCases) func combineKeepsTheOrder(_ engine: TestEngine) async throws {
        let sizes = [300, 10, 2000]
        var operations: [DTO] = []
        for size in sizes { operations.append(DTO.get(try await TestServer.url("bytes/\(size)")).on(engine)) }
        let group = GroupOperation.combine(operations)
        let done = try await group.run()
        #expect(done.map(\.receivedData.count) == sizes)
        #expect(done.allSatisfy { $0.state == .successFinished })
    }

    @Test(arguments: TestEngine.allCases) func combineFailsFastAndCancelsTheRest(_ engine: TestEngine) async throws {
        let slow = DTO.get(try await TestServer.url("delay?seconds=60")).on(engine)
        let failing = DTO.get(try await TestServer.url("status/500")).on(engine)
        let group = GroupOperation.combine([slow, failing])
        await #expect(throws: NetOpsError.self) { try await group.run() }
        #expect((group.error as? NetOpsError)?.httpStatus == 500)
        #expect(await eventually { slow.state == .cancelled })
    }

    @Test(arguments: TestEngine.allCases) func combineToleranceKeepsWhatSucceeded(_ engine: TestEngine) async throws {
        let good = DTO.get(try await TestServer.url("bytes/64")).on(engine)
        let bad = DTO.get(try await TestServer.url("status/500")).on(engine)
        let alsoGood = DTO.get(try await TestServer.url("json")).on(engine)
        let group = GroupOperation.combineTolerance([good, bad, alsoGood])
        let partial = try await group.run()
        #expect(partial.succeeded.map { ObjectIdentifier($0) } == [ObjectIdentifier(good), ObjectIdentifier(alsoGood)])
        #expect(partial.failures.count == 1)
        #expect(partial.failures.first?.operation === bad)
        #expect((partial.failures.first?.error as? NetOpsError)?.httpStatus == 500)
        #expect(group.state == .successFinished)
    }

    @Test(arguments: TestEngine.allCases) func combineToleranceFailsOnlyWhenAllFail(_ engine: TestEngine) async throws {
        let group = GroupOperation.combineTolerance([
            DTO.get(try await TestServer.url("status/500")).on(engine),
            DTO.get(try await TestServer.url("status/404")).on(engine),
        ])
        await #expect(throws: GroupError.self) { try await group.run() }
        guard case let .allFailed(failures)? = group.error as? GroupError else {
            Issue.record("expected allFailed, got \(String(describing: group.error))")
            return
        }
        #expect(failures.compactMap { ($0.error as? NetOpsError)?.httpStatus } == [500, 404])
    }

    @Test(arguments: TestEngine.allCases) func chainBuildsTheSecondFromTheFirst(_ engine: TestEngine) async throws {
        let base = try await TestServer.get().baseURL
        let group = GroupOperation.chain(DTO.get(base.appendingPathComponent("bytes/77")).on(engine)) { first in
            DTO.get(base.appendingPathComponent("bytes/\(first.receivedData.count * 2)")).on(engine)
        }
        let (first, second) = try await group.run()
        #expect(first.receivedData.count == 77)
        #expect(second.receivedData.count == 154)
    }

    @Test(arguments: TestEngine.allCases) func chainStopsWhenTheFirstFails(_ engine: TestEngine) async throws {
        let built = Counter()
        let group = GroupOperation.chain(DTO.get(try await TestServer.url("status/500")).on(engine)) { _ in
            built.increment()
            return DTO.get("http://127.0.0.1:1/never").on(engine)
        }
        await #expect(throws: NetOpsError.self) { try await group.run() }
        #expect(built.value == 0)
    }

    // MARK: Cancellation

    /// Outer (async) → middle (sync) → inner (async) → a 10-second request. Cancelling the outer
    /// group must end the request, two levels down, within 100 ms: measured from `cancel()` to
    /// the request's completion reporting `.cancelled`. Shared side of the process gate: it times
    /// 100 ms, which a load test beside it would stretch.
    @Test(.processGate(.shared), arguments: TestEngine.allCases)
    func cancellingTheOuterGroupReachesTheInnermostRunningOperation(_ engine: TestEngine) async throws {
        let request = DTO.get(try await TestServer.url("delay?seconds=60")).on(engine)
        let cancelledAt = Locked<UInt64?>(nil)
        let completedAt = Locked<(UInt64, OperationState)?>(nil)
        request.onCompletion { operation in
            completedAt.withLock { $0 = (DispatchTime.now().uptimeNanoseconds, operation.state) }
        }
        let inner = GO<Int> { context in try await context.run(request).receivedData.count }
        let middle = GO<Int>(sync: { context in try context.syncRun(inner) })
        let outer = GO<Int> { context in try await context.run(middle) }
        let task = Task { try await outer.run() }
        #expect(await eventually { request.state == .working })

        cancelledAt.withLock { $0 = DispatchTime.now().uptimeNanoseconds }
        outer.cancel()

        #expect(await eventually { completedAt.withLock { $0 } != nil })
        let (end, state) = try #require(completedAt.withLock { $0 })
        let start = try #require(cancelledAt.withLock { $0 })
        #expect(state == .cancelled)
        #expect(Double(end - start) / 1e6 < 100, "the innermost operation ended \(Double(end - start) / 1e6) ms after cancel()")
        await #expect(throws: GroupError.self) { try await task.value }
        #expect(outer.state == .cancelled)
        #expect(middle.state == .cancelled)
        #expect(inner.state == .cancelled)
    }

    /// The same through sync bodies only, with a slow download, and operations started in child
    /// tasks of an async body.
    @Test(arguments: TestEngine.allCases) func cancellingReachesSyncBodiesAndChildTasks(_ engine: TestEngine) async throws {
        // 8 MiB at 256 KiB/s: 32 s, so neither download can end while the other is still
        // starting on a loaded machine (both must be running when the cancel comes).
        let slow = try await TestServer.url("bytes/\(8 << 20)?rate=\(1 << 18)")
        let viaThread = DTO.get(slow).on(engine)
        let viaTaskGroup = DTO.get(slow).on(engine)
        let syncInner = GO<Int>(sync: { _ in viaThread.syncStart().receivedData.count })
        let asyncInner = GO<Int> { _ in
            try await withThrowingTaskGroup(of: Int.self) { tasks in
                tasks.addTask { try await viaTaskGroup.run().receivedData.count }
                return try await tasks.next() ?? 0
            }
        }
        let outer = GO<Int>(sync: { context in
            asyncInner.start()
            return try context.syncRun(syncInner)
        })
        outer.start()
        // A hang guard, not a measurement: behind a load test the first bytes can take seconds.
        #expect(await eventually(within: 30) { viaThread.progress.bytesReceived > 0 && viaTaskGroup.progress.bytesReceived > 0 })
        outer.cancel()
        #expect(viaThread.state == .cancelled, "cancel() reached it before returning")
        #expect(viaTaskGroup.state == .cancelled)
        #expect(syncInner.state == .cancelled && asyncInner.state == .cancelled)
        await outer.finished()
        #expect(outer.error as? GroupError != nil)
    }

    @Test(arguments: TestEngine.allCases) func operationsStartedAfterTheCancelAreCancelledAtOnce(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("json")
        let late = Recorder<OperationState>()
        let group = GO<Void>(sync: { context in
            while !context.isCancelled { Thread.sleep(forTimeInterval: 0.005) }
            late.append(DTO.get(url).on(engine).syncStart().state)
        })
        group.start()
        #expect(await eventually { group.state == .working })
        group.cancel()
        #expect(await eventually { late.all.count == 1 })
        #expect(late.all == [.cancelled])
    }

    @Test(arguments: TestEngine.allCases) func cancelledBeforeStart(_ engine: TestEngine) async throws {
        let ran = Counter()
        let completions = Counter()
        let group = GO<Int>(sync: { _ in
            ran.increment()
            return 1
        }).onCompletion { _ in completions.increment() }
        group.cancel()
        #expect(group.state == .cancelled)
        #expect(completions.value == 1)
        #expect(!group.isFinished, "isFinished waits for start(), as a queue calls it")
        group.start()
        #expect(group.isFinished)
        await #expect(throws: GroupError.self) { try await group.run() }
        try await Task.sleep(for: .milliseconds(50))
        #expect(ran.value == 0)
        #expect(completions.value == 1)
    }

    @Test(arguments: TestEngine.allCases) func cancelledInAQueueBeforeItRuns(_ engine: TestEngine) async throws {
        let queue = OperationQueue()
        queue.isSuspended = true
        let ran = Counter()
        let group = GO<Int> { _ in
            ran.increment()
            return 1
        }
        queue.addOperation(group)
        group.cancel()
        queue.isSuspended = false
        #expect(await eventually { queue.operationCount == 0 })
        #expect(group.isFinished && group.state == .cancelled)
        #expect(ran.value == 0)
    }

    // MARK: Completion and lifetime

    @Test(arguments: TestEngine.allCases) func completionRunsExactlyOnce(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("delay?seconds=0.1")
        for cancelDuringWork in [false, true] {
            let completions = Counter()
            let group = GO<Int> { context in try await context.run(DTO.get(url).on(engine)).receivedData.count }
                .onCompletion { _ in completions.increment() }
            group.start()
            if cancelDuringWork {
                await onThreads(8) { _ in group.cancel() }
            }
            await group.finished()
            group.cancel()
            try await Task.sleep(for: .milliseconds(200))
            #expect(completions.value == 1)
            let late = Counter()
            group.onCompletion { _ in late.increment() }
            #expect(late.value == 1, "a completion added to a finished group runs at once")
        }
    }

    @Test(arguments: TestEngine.allCases) func groupsAndTheirOperationsAreReleasedAfterFinishing(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("json")
        let weakOuter = Weak<GO<Int>>()
        let weakInner = Weak<GO<Int>>()
        let weakOperation = Weak<DTO>()
        do {
            let operation = DTO.get(url).on(engine)
            let inner = GO<Int>(sync: { context in try context.syncRun(operation).receivedData.count })
            let outer = GO<Int> { context in try await context.run(inner) }
            weakOuter.value = outer
            weakInner.value = inner
            weakOperation.value = operation
            #expect(try await outer.run() > 0)
        }
        #expect(await eventually { weakOuter.value == nil && weakInner.value == nil && weakOperation.value == nil })
    }

    @Test(arguments: TestEngine.allCases) func finishedSubOperationsLeaveTheScope(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("json")
        let group = GO<Int>(sync: { context in
            for _ in 0..<5 { _ = try context.syncRun(DTO.get(url).on(engine)) }
            return 5
        })
        #expect(try await group.run() == 5)
        #expect(group.scope.memberCount == 0)
        #expect(group.failures.isEmpty)
    }

    @Test(arguments: TestEngine.allCases) func usableFromSendableContexts(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("json")
        let make: @Sendable () -> GO<Int> = { GO<Int> { context in try await context.run(DTO.get(url).on(engine)).receivedData.count } }
        let counts = try await withThrowingTaskGroup(of: Int.self) { tasks in
            for _ in 0..<4 { tasks.addTask { try await make().run() } }
            return try await tasks.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(counts.count == 4 && counts.allSatisfy { $0 > 0 })
    }

    @Test(arguments: TestEngine.allCases) func cancelledGroupsAreReleasedToo(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("delay?seconds=60")
        let weakGroup = Weak<GO<Int>>()
        do {
            let group = GO<Int>(sync: { context in try context.syncRun(DTO.get(url).on(engine)).receivedData.count })
            weakGroup.value = group
            group.start()
            #expect(await eventually { group.scope.memberCount == 1 })
            group.cancel()
            await group.finished()
        }
        #expect(await eventually { weakGroup.value == nil })
    }
}

/// A weak reference readable from any thread.
private final class Weak<Object: AnyObject>: @unchecked Sendable {
    private let lock = NSLock()
    private weak var object: Object?

    var value: Object? {
        get { lock.withLock { object } }
        set { lock.withLock { object = newValue } }
    }
}
