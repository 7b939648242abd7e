import Foundation
import TestSupport
import Testing

@testable import NetOps

/// A group's progress: sub-operations started and ended, and the bytes they moved, through
/// `progress`, `onProgress` and the delegate.
@Suite(.timeLimit(.minutes(2)))
struct GroupProgressTests {
    final class Delegate: GroupOperationDelegate {
        let updates = Locked<[GroupProgress]>([])
        let finished = Locked(0)

        func groupOperation(_ group: Operation, didUpdate progress: GroupProgress) {
            updates.withLock { $0.append(progress) }
        }

        func groupOperationDidFinish(_ group: Operation) {
            finished.withLock { $0 += 1 }
        }
    }

    /// The counts only grow, in the order they happened.
    static func isOrdered(_ updates: [GroupProgress]) -> Bool {
        zip(updates, updates.dropFirst()).allSatisfy { earlier, later in
            earlier.completedOperations <= later.completedOperations && earlier.totalOperations <= later.totalOperations
        }
    }

    @Test(arguments: TestEngine.allCases) func countsSubOperationsAndBytes(_ engine: TestEngine) async throws {
        let sizes = [1_000, 20_000, 300_000]
        var urls: [URL] = []
        for size in sizes { urls.append(try await TestServer.url("bytes/\(size)")) }
        let delegate = Delegate()
        let updates = Recorder<GroupProgress>()
        let group = GO<Int>(sync: { [urls] context in
            var total = 0
            for url in urls { total += try context.syncRun(DTO.get(url).on(engine)).receivedData.count }
            return total
        })
        group.delegate = delegate
        group.onProgress { _, progress in updates.append(progress) }
        #expect(group.progress == GroupProgress())
        #expect(try await group.run() == 321_000)

        let final = group.progress
        #expect(final.totalOperations == 3)
        #expect(final.completedOperations == 3)
        #expect(final.bytesReceived == 321_000)
        #expect(final.totalBytesToReceive == 321_000)
        #expect(final.fractionCompleted == 1)
        #expect(await eventually { updates.all.last == final })
        #expect(Self.isOrdered(updates.all))
        // Each start and each end was reported: 1 of 1, 1 of 2, 2 of 3, … in order.
        let counts = updates.all.map { [$0.completedOperations, $0.totalOperations] }
        #expect(counts.contains([0, 1]) && counts.contains([1, 2]) && counts.contains([2, 3]))
        #expect(updates.all.contains { $0.bytesReceived > 0 && $0.completedOperations == 0 }, "bytes reported while the first one ran")
        #expect(await eventually { delegate.updates.withLock { $0.last } == final })
        #expect(Self.isOrdered(delegate.updates.withLock { $0 }))
        #expect(delegate.finished.withLock { $0 } == 1)
    }

    /// A nested group is one sub-operation of its parent; its bytes count in the parent's.
    @Test(arguments: TestEngine.allCases) func aNestedGroupCountsAsOneWithItsBytes(_ engine: TestEngine) async throws {
        let (first, second, third) = (
            try await TestServer.url("bytes/100"), try await TestServer.url("bytes/200"),
            try await TestServer.url("bytes/300")
        )
        let inner = Locked<GO<Int>?>(nil)
        let outer = GO<Int> { context in
            let nested = GO<Int> { context in
                async let a = context.run(DTO.get(first).on(engine))
                async let b = context.run(DTO.get(second).on(engine))
                return try await a.receivedData.count + b.receivedData.count
            }
            inner.withLock { $0 = nested }
            let nestedCount = try await context.run(nested)
            return nestedCount + (try await context.run(DTO.get(third).on(engine))).receivedData.count
        }
        #expect(try await outer.run() == 600)
        #expect(outer.progress.totalOperations == 2)
        #expect(outer.progress.completedOperations == 2)
        #expect(outer.progress.bytesReceived == 600)
        let nested = try #require(inner.withLock { $0 })
        #expect(nested.progress.totalOperations == 2)
        #expect(nested.progress.bytesReceived == 300)
    }

    /// Failed and cancelled sub-operations end too: they count as completed.
    @Test(arguments: TestEngine.allCases) func failedAndCancelledSubOperationsCountAsCompleted(_ engine: TestEngine) async throws {
        let missing = try await TestServer.url("status/404")
        let slow = try await TestServer.url("delay?seconds=5")
        let group = GO<Int>(
            policy: .collectPartialResults,
            sync: { _ in
                _ = DTO.get(missing).on(engine).syncStart()
                let waiting = DTO.get(slow).on(engine)
                waiting.start()
                waiting.cancel()
                return 0
            })
        _ = try await group.run()
        #expect(group.progress.totalOperations == 2)
        #expect(group.progress.completedOperations == 2)
        #expect(group.failures.count == 1)
    }
}
