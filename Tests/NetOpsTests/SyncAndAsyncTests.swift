import Foundation
import TestSupport
import Testing

@testable import NetOps

/// `syncStart()`, `run()` and the delegate.
/// (Five minutes: waiting for the process gate counts against the limit.)
@Suite(.timeLimit(.minutes(5)))
struct SyncAndAsyncTests {
    @Test(arguments: TestEngine.allCases) func syncStartFromSixteenThreadsAtOnce(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("delay?seconds=0.2")
        let results = Recorder<(OperationState, Int)>()
        await onThreads(16) { _ in
            let operation = DTO.get(url).on(engine).syncStart()
            results.append((operation.state, operation.receivedData.count))
        }
        #expect(results.all.count == 16)
        #expect(results.all.allSatisfy { $0.0 == .successFinished && $0.1 > 0 })
    }

    @Test(arguments: TestEngine.allCases) func syncStartReturnsAfterCompletionRan(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("json")
        let ranFirst = Locked(false)
        await onThreads(1) { _ in
            let operation = DTO.get(url).on(engine).onCompletion { _ in ranFirst.withLock { $0 = true } }.syncStart()
            #expect(ranFirst.withLock { $0 })
            #expect(operation.isFinished)
        }
    }

    @Test(arguments: TestEngine.allCases) func syncStartOnACancelledOperationReturnsAtOnce(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("json")).on(engine)
        operation.cancel()
        let returned = await syncStartDetached(operation)
        #expect(returned.state == .cancelled)
    }

    /// Shared side of the process gate: it times the cancel (well before the server's minute).
    @Test(.processGate(.shared), arguments: TestEngine.allCases)
    func cancellingTheTaskCancelsTheOperation(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("delay?seconds=60")).on(engine)
        let task = Task { try await operation.run() }
        #expect(await eventually { operation.state == .working })
        let cancelledAt = Date()
        task.cancel()
        await #expect(throws: NetOpsError.self) { try await task.value }
        #expect(operation.state == .cancelled)
        // Not the server's answer (a minute away): the cancel ended it. The margin is for a
        // loaded run, where the test task itself may wake seconds late.
        #expect(Date().timeIntervalSince(cancelledAt) < 20)
    }

    @Test(arguments: TestEngine.allCases) func runInAnAlreadyCancelledTask(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("json")).on(engine)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await operation.run()
        }
        await #expect(throws: NetOpsError.self) { try await task.value }
        #expect(operation.state == .cancelled)
    }

    final class RecordingDelegate: NetworkOperationDelegate, @unchecked Sendable {
        let states = Recorder<OperationState>()
        let progress = Recorder<Int64>()
        let finished = Counter()
        func operation(_ operation: BaseOperation, didChangeStateTo state: OperationState) { states.append(state) }
        func operation(_ operation: BaseOperation, didUpdate progress: TransferProgress) { self.progress.append(progress.bytesReceived) }
        func operationDidFinish(_ operation: BaseOperation) { finished.increment() }
    }

    @Test(arguments: TestEngine.allCases) func delegateHearsWhatClosuresHear(_ engine: TestEngine) async throws {
        let delegate = RecordingDelegate()
        let closureProgress = Recorder<Int64>()
        let operation = DTO.get(try await TestServer.url("bytes/\(1 << 20)")).on(engine)
            .onProgress { _, progress in closureProgress.append(progress.bytesReceived) }
        operation.delegate = delegate
        try await operation.run()
        #expect(delegate.states.all == [.working, .successFinished])
        #expect(delegate.finished.value == 1)
        #expect(delegate.progress.all == closureProgress.all)
        #expect(delegate.progress.all.last == 1 << 20)
    }
}
