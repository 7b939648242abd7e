import Foundation
import TestSupport
import Testing

@testable import NetOps

/// Cancelling at every point of an operation's life: it ends `.cancelled` and its completion
/// runs exactly once.
@Suite(.timeLimit(.minutes(1)))
struct CancellationTests {
    @Test(arguments: TestEngine.allCases) func beforeStart(_ engine: TestEngine) async throws {
        let calls = Counter()
        let operation = DTO.get(try await TestServer.url("json")).on(engine).onCompletion { _ in calls.increment() }
        operation.cancel()
        #expect(operation.state == .cancelled)
        #expect(operation.isCancelled)
        #expect(calls.value == 1)
        #expect(!operation.isFinished, "isFinished waits for start(), as a queue calls it")
        operation.start()
        #expect(operation.isFinished)
        operation.cancel()
        #expect(calls.value == 1)
        #expect(operation.error?.kind == .cancelled)
    }

    @Test(arguments: TestEngine.allCases) func whileQueued(_ engine: TestEngine) async throws {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.isSuspended = true
        let calls = Counter()
        let url = try await TestServer.url("json")
        let operations = (0..<5).map { _ in DTO.get(url).on(engine).onCompletion { _ in calls.increment() } }
        for operation in operations { queue.addOperation(operation) }
        for operation in operations { operation.cancel() }
        queue.isSuspended = false
        #expect(await eventually { queue.operationCount == 0 })
        #expect(operations.allSatisfy { $0.state == .cancelled && $0.isFinished })
        #expect(calls.value == 5)
    }

    @Test(arguments: TestEngine.allCases) func midFlight(_ engine: TestEngine) async throws {
        let calls = Counter()
        let operation = DTO.get(try await TestServer.url("bytes/\(8 << 20)?rate=\(1 << 20)")).on(engine).onCompletion { _ in calls.increment() }
        let queue = OperationQueue()
        queue.addOperation(operation)
        #expect(await eventually { operation.progress.bytesReceived > 0 })
        operation.cancel()
        #expect(operation.state == .cancelled)
        #expect(await eventually { queue.operationCount == 0 })
        #expect(operation.isFinished && !operation.isExecuting)
        #expect(operation.receivedData.isEmpty, "partial data is discarded")
        try await Task.sleep(for: .milliseconds(100))
        #expect(calls.value == 1)
    }

    @Test(arguments: TestEngine.allCases) func whileSuspended(_ engine: TestEngine) async throws {
        let calls = Counter()
        let operation = DTO.get(try await TestServer.url("bytes/\(8 << 20)?rate=\(1 << 20)")).on(engine).onCompletion { _ in calls.increment() }
        operation.start()
        #expect(await eventually { operation.progress.bytesReceived > 0 })
        #expect(operation.suspend())
        operation.cancel()
        #expect(operation.state == .cancelled)
        #expect(operation.isFinished)
        #expect(!operation.resume())
        try await Task.sleep(for: .milliseconds(100))
        #expect(calls.value == 1)
    }

    @Test(arguments: TestEngine.allCases) func cancellingADownloadLeavesNoFile(_ engine: TestEngine) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netops-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        // 8 MiB at 256 KiB/s (32 s): it cannot end before the cancel on a loaded machine.
        let operation = DO.get(try await TestServer.url("bytes/\(8 << 20)?rate=\(1 << 18)"), to: directory.appendingPathComponent("file")).on(engine)
        operation.start()
        // A hang guard, not a measurement: behind a load test the first bytes can take seconds.
        #expect(await eventually(within: 30) { operation.progress.bytesReceived > 0 })
        operation.cancel()
        await operation.finished()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    /// Cancel racing with completion from many threads: still exactly one completion each.
    @Test(arguments: TestEngine.allCases) func cancelRacingCompletion(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("json")
        let calls = Counter()
        let operations = (0..<200).map { _ in DTO.get(url).on(engine).onCompletion { _ in calls.increment() } }
        for operation in operations { operation.start() }
        await onThreads(4) { index in
            for (position, operation) in operations.enumerated() where position % 4 == index { operation.cancel() }
        }
        for operation in operations { await operation.finished() }
        #expect(calls.value == 200)
        #expect(operations.allSatisfy { $0.isFinished && $0.state.isFinishedOrCancelled })
    }
}
