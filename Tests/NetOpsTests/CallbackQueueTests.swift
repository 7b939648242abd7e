import Foundation
import TestSupport
import Testing

@testable import NetOps

/// An operation's closures run on the queue it is given, in the order of the events, and the
/// end is posted after its completions there.
@Suite(.timeLimit(.minutes(1)))
struct CallbackQueueTests {
    /// A serial queue that knows itself.
    final class MarkedQueue: Sendable {
        let queue = DispatchQueue(label: "CallbackQueueTests")
        private let key = DispatchSpecificKey<Int>()

        init() { queue.setSpecific(key: key, value: 1) }

        var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == 1 }
    }

    @Test(arguments: TestEngine.allCases)
    func everyClosureRunsOnTheGivenQueue(_ engine: TestEngine) async throws {
        let marked = MarkedQueue()
        let seen = Locked<[String]>([])
        let offQueue = Locked(0)
        let operation = DTO.get(try await TestServer.url("bytes/65536")).on(engine)
        operation.callbackQueue = marked.queue
        operation
            .onStateChange { _, state in
                if !marked.isCurrent { offQueue.withLock { $0 += 1 } }
                seen.withLock { $0.append("state \(state)") }
            }
            .onProgress { _, _ in
                if !marked.isCurrent { offQueue.withLock { $0 += 1 } }
            }
            .onCompletion { _ in
                if !marked.isCurrent { offQueue.withLock { $0 += 1 } }
                seen.withLock { $0.append("completion") }
            }
        try await operation.run()
        // `run()` returned after the completion, which ran on the queue, after the states.
        let events = seen.withLock { $0 }
        #expect(events.last == "completion")
        #expect(events.first == "state \(OperationState.working)")
        #expect(offQueue.withLock { $0 } == 0)
        #expect(operation.isFinished)
    }

    /// `syncStart()` from another thread returns only after the completion ran on the queue.
    @Test(arguments: TestEngine.allCases)
    func syncStartReturnsAfterTheQueuedCompletion(_ engine: TestEngine) async throws {
        let marked = MarkedQueue()
        let ran = Locked(false)
        let operation = DTO.get(try await TestServer.url("json")).on(engine)
        operation.callbackQueue = marked.queue
        operation.onCompletion { _ in
            Thread.sleep(forTimeInterval: 0.05)
            ran.withLock { $0 = marked.isCurrent }
        }
        await onThreads(1) { _ in operation.syncStart() }
        #expect(ran.withLock { $0 })
        #expect(operation.state == .successFinished)
    }

    /// The request as the engine got it is there for diagnostics.
    @Test(arguments: TestEngine.allCases)
    func theSentRequestIsReachable(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("json"), headers: ["X-Trace": "t1"]).on(engine)
        #expect(operation.sentRequest == nil)
        try await operation.run()
        #expect(operation.sentRequest?.value(forHTTPHeaderField: "X-Trace") == "t1")
        #expect(operation.sentRequest?.url?.path == "/json")
    }
}
