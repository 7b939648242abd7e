import DemoServer
import Foundation
import NIOPosix
import NetOpsNIO
import TestSupport
import Testing

@testable import NetOps

/// The NIO engine with `completionDelivery = .eventLoop`: the end of a transfer is handed to the
/// operation on the transfer's event loop, and everything else behaves as with the default.
struct CompletionOnEventLoopTests {
    /// One session for the suite; its operations end on event loop threads.
    static let session: NetworkSession = {
        var configuration = NIOEngineConfiguration(concurrency: 16)
        configuration.completionDelivery = .eventLoop
        return NetworkSession.nio(configuration: configuration)
    }()

    @Test func completionHandlersRunOnAnEventLoop() async throws {
        let onLoop = Locked<[Bool]>([])
        let operation = DTO.get(try await TestServer.url("json"))
        operation.privateSession = Self.session
        operation.onCompletion { _ in onLoop.withLock { $0.append(MultiThreadedEventLoopGroup.currentEventLoop != nil) } }
        try await operation.run()
        #expect(operation.statusCode == 200)
        #expect(!operation.receivedData.isEmpty)
        #expect(onLoop.withLock { $0 } == [true])

        let queued = DTO.get(try await TestServer.url("json"))
        queued.onCompletion { _ in onLoop.withLock { $0.append(MultiThreadedEventLoopGroup.currentEventLoop != nil) } }
        try await queued.run()
        #expect(onLoop.withLock { $0 } == [true, false], "the default session completes on a dispatch queue")
    }

    @Test func aQueueRunsEveryOperationAndStartsTheNextFromTheLoop() async throws {
        let url = try await TestServer.url("json")
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        let operations = (0..<40).map { _ in
            let operation = DTO.get(url)
            operation.privateSession = Self.session
            return operation
        }
        for operation in operations { queue.addOperation(operation) }
        for operation in operations { await operation.finished() }
        #expect(operations.allSatisfy { $0.state == .successFinished })
        #expect(operations.allSatisfy { $0.isFinished })
    }

    @Test func idleTimeoutCancelAndResumeBehaveAsWithTheDefault() async throws {
        let slow = DTO.get(try await TestServer.url("drip?bytes=5&interval=2"))
        slow.privateSession = Self.session
        slow.idleTimeout = 0.5
        await #expect(throws: NetOpsError.self) { try await slow.run() }
        #expect(slow.error?.kind == .idleTimeout(seconds: 0.5))

        let cancelled = DTO.get(try await TestServer.url("drip?bytes=50&interval=0.05"))
        cancelled.privateSession = Self.session
        cancelled.onProgress { operation, progress in
            if progress.bytesReceived >= 3 { operation.cancel() }
        }
        await #expect(throws: NetOpsError.self) { try await cancelled.run() }
        #expect(cancelled.state == .cancelled)

        let size = 3 << 20
        let whole = DTO.get(try await TestServer.url("bytes/\(size)"))
        whole.privateSession = Self.session
        let suspendedOnce = Locked(false)
        whole.onProgress { operation, progress in
            let first = suspendedOnce.withLock { done -> Bool in
                defer { done = true }
                return !done && progress.bytesReceived > 1 << 20
            }
            if first {
                operation.suspend()
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { operation.resume() }
            }
        }
        try await whole.run()
        #expect(whole.receivedData.count == size)
        #expect(whole.receivedData == DemoPayload.data(size: size))
        #expect(suspendedOnce.withLock { $0 })
    }

    @Test(arguments: [NIOEngineConfiguration.CompletionDelivery.eventLoop, .dispatchQueue])
    func finishedOperationsLeaveNoDeadlineBehind(_ delivery: NIOEngineConfiguration.CompletionDelivery) async throws {
        var configuration = NIOEngineConfiguration()
        configuration.completionDelivery = delivery
        let session = NetworkSession.nio(configuration: configuration)
        let url = try await TestServer.url("json")
        for _ in 0..<50 {
            let operation = DTO.get(url)
            operation.privateSession = session
            try await operation.run()
        }
        let suspended = DTO.get(try await TestServer.url("drip?bytes=20&interval=0.05"))
        suspended.privateSession = session
        suspended.onProgress { operation, _ in operation.suspend() }
        suspended.start()
        try await until { suspended.state == .suspended }
        // Each ended or suspended transfer's deadline is forgotten in its own effects, which run
        // just after the state changes (under TSan the gap showed): wait for them.
        try await until { session.deadlines.count == 0 }
        suspended.cancel()
        await suspended.finished()
        try await session.shutdownNIOEngine()
    }

    /// Polls `condition` every 10 ms for up to 10 s.
    private func until(_ condition: () -> Bool) async throws {
        for _ in 0..<1_000 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(condition())
    }
}
