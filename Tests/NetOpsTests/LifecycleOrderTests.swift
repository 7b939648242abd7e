import Foundation
import TestSupport
import Testing

@testable import NetOps

/// Operations and groups share one lifecycle: a queue sees `isFinished` only after the
/// completions ran, so a queue of width one never starts the next operation before them.
@Suite(.timeLimit(.minutes(1)))
struct LifecycleOrderTests {
    /// Events in the order they happened.
    final class Journal: Sendable {
        private let entries = Locked<[String]>([])
        func note(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    @Test func aQueueStartsTheNextOperationOnlyAfterAGroupsCompletions() async throws {
        let journal = Journal()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let groups = (0..<5).map { index in
            GO<Int>(sync: { _ in
                journal.note("body \(index)")
                return index
            })
            .onCompletion { _ in
                // A slow completion: the next body must still wait for it.
                Thread.sleep(forTimeInterval: 0.02)
                journal.note("completion \(index)")
            }
        }
        for group in groups { queue.addOperation(group) }
        for group in groups { await group.finished() }
        #expect(await eventually { journal.all.count == 10 })
        #expect(journal.all == (0..<5).flatMap { ["body \($0)", "completion \($0)"] })
        #expect(groups.allSatisfy { $0.isFinished })
    }

    @Test(arguments: TestEngine.allCases)
    func aQueueStartsTheNextOperationOnlyAfterAnOperationsCompletions(_ engine: TestEngine) async throws {
        let journal = Journal()
        let url = try await TestServer.url("json")
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let operations = (0..<5).map { index in
            DTO.get(url).on(engine)
                .onStateChange { _, state in if state == .working { journal.note("start \(index)") } }
                .onCompletion { _ in
                    Thread.sleep(forTimeInterval: 0.02)
                    journal.note("completion \(index)")
                }
        }
        for operation in operations { queue.addOperation(operation) }
        for operation in operations { await operation.finished() }
        #expect(await eventually { journal.all.count == 10 })
        #expect(journal.all == (0..<5).flatMap { ["start \($0)", "completion \($0)"] })
    }

    /// `finished()` called after the machine is final but while the completions still run
    /// waits for them (the window a caller watching `state` falls into).
    @Test(arguments: TestEngine.allCases)
    func finishedCalledWhileCompletionsRunWaitsForThem(_ engine: TestEngine) async throws {
        let journal = Journal()
        let operation = DTO.get(try await TestServer.url("json")).on(engine)
            .onCompletion { _ in
                Thread.sleep(forTimeInterval: 0.1)
                journal.note("completion")
            }
        operation.start()
        // 60 s: the in-process server can take seconds to answer in a loaded run.
        #expect(await eventually(within: 60) { !operation.state.isWorkingOrInProcess })
        await operation.finished()
        journal.note("finished")
        #expect(journal.all == ["completion", "finished"])
    }

    /// The same window for a group: `finished()` waits for the completions.
    @Test func aGroupsLateWaitersWaitForItsCompletions() async throws {
        let journal = Journal()
        let group = GO<Int>(sync: { _ in 1 })
            .onCompletion { _ in
                Thread.sleep(forTimeInterval: 0.1)
                journal.note("completion")
            }
        group.start()
        #expect(await eventually { !group.state.isWorkingOrInProcess })
        await group.finished()
        journal.note("finished")
        #expect(journal.all == ["completion", "finished"])
    }
}
