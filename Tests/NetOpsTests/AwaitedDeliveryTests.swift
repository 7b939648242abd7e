import DemoServer
import Foundation
import NIOPosix
import NetOpsNIO
import TestSupport
import Testing

@testable import NetOps

/// The end of an operation awaited with `run()` is carried out by the awaiting task, which the
/// event loop only resumes; one that only `finished()` waits for is delivered where its transfer
/// ends, with no dispatch hop; as soon as someone who may block listens (a completion closure),
/// it goes to a queue of its own, never an event loop.
@Suite(.timeLimit(.minutes(1)))
struct AwaitedDeliveryTests {
    /// Notes, when the chain judges the attempt, whether it runs on an event loop.
    struct WhereJudged: NetworkMiddleware {
        let onLoop = Locked<[Bool]>([])
        func judge(_ outcome: AttemptOutcome, verdict: inout Verdict, context: MiddlewareContext) throws {
            onLoop.withLock { $0.append(MultiThreadedEventLoopGroup.currentEventLoop != nil) }
        }
    }

    /// The loop every request of its connections shares does not carry out the end.
    @Test(arguments: TestEngine.allCases) func anAwaitedOperationEndsInTheAwaitingTask(_ engine: TestEngine) async throws {
        let session = engine.makeSession()
        let stage = WhereJudged()
        let task = WhichTask()
        let operation = DTO.get(try await TestServer.url("json")).on(session).use(stage).use(task)
        try await Self.$awaitingTask.withValue("caller") { _ = try await operation.run() }
        #expect(stage.onLoop.withLock { $0 } == [false])
        #expect(task.seen.withLock { $0 } == ["caller"])
        #expect(operation.state == .successFinished)
    }

    /// Nobody awaits it in `run()` and nobody who may block listens: the end is carried out where
    /// the transfer ends.
    @Test func anOperationOnlyWaitedForEndsOnTheEventLoop() async throws {
        let session = TestEngine.nio.makeSession()
        let stage = WhereJudged()
        let operation = DTO.get(try await TestServer.url("json")).on(session).use(stage)
        operation.start()
        await operation.finished()
        #expect(stage.onLoop.withLock { $0 } == [true])
        #expect(operation.state == .successFinished)
    }

    @Test func aCompletionHandlerMovesTheEndOffTheEventLoop() async throws {
        let session = TestEngine.nio.makeSession()
        let stage = WhereJudged()
        let handlerOnLoop = Locked<Bool?>(nil)
        let operation = DTO.get(try await TestServer.url("json")).on(session).use(stage)
        operation.onCompletion { _ in handlerOnLoop.withLock { $0 = MultiThreadedEventLoopGroup.currentEventLoop != nil } }
        try await operation.run()
        #expect(stage.onLoop.withLock { $0 } == [false])
        #expect(handlerOnLoop.withLock { $0 } == false)
    }

    /// Set by the task that awaits an operation: visible where the end is carried out only when
    /// that task carries it out.
    @TaskLocal static var awaitingTask: String?

    /// Notes, when the chain judges the attempt, which task (if any) it runs in.
    struct WhichTask: NetworkMiddleware {
        let seen = Locked<[String?]>([])
        func judge(_ outcome: AttemptOutcome, verdict: inout Verdict, context: MiddlewareContext) throws {
            seen.withLock { $0.append(AwaitedDeliveryTests.awaitingTask) }
        }
    }

    /// An operation whose only completion never blocks (APILayer's own, `onEnd`) is awaited:
    /// its end is carried out by the awaiting task (`EndRelay`), not on a queue or a loop.
    @Test(arguments: TestEngine.allCases) func anEndNobodyBlocksOnIsCarriedOutByTheAwaitingTask(_ engine: TestEngine) async throws {
        let session = engine.makeSession()
        let stage = WhichTask()
        let ended = Locked(0)
        let operation = DTO.get(try await TestServer.url("json")).on(session).use(stage)
        operation.onEnd { _ in ended.withLock { $0 += 1 } }
        try await Self.$awaitingTask.withValue("caller") { _ = try await operation.run() }
        #expect(stage.seen.withLock { $0 } == ["caller"])
        #expect(ended.withLock { $0 } == 1)
        #expect(operation.state == .successFinished)
    }

    /// A completion closure of the caller's may block: the end goes to a queue of its own.
    @Test(arguments: TestEngine.allCases) func aCallersCompletionKeepsTheEndOnAQueue(_ engine: TestEngine) async throws {
        let session = engine.makeSession()
        let stage = WhichTask()
        let operation = DTO.get(try await TestServer.url("json")).on(session).use(stage)
        operation.onEnd { _ in }
        operation.onCompletion { _ in }
        try await Self.$awaitingTask.withValue("caller") { _ = try await operation.run() }
        #expect(stage.seen.withLock { $0 } == [nil])
    }

    /// Retries: every attempt's end comes back to the awaiting task, which returns once the
    /// operation is final.
    @Test(arguments: TestEngine.allCases) func everyAttemptsEndComesBackToTheAwaitingTask(_ engine: TestEngine) async throws {
        let session = engine.makeSession()
        let stage = WhichTask()
        let flaky = "realm/relay-\(UUID().uuidString.prefix(8))/flaky?key=k&fail=2&status=503"
        let operation = DTO.get(try await TestServer.url(flaky)).on(session).use(stage)
        operation.retryPolicy = RetryPolicy(maximumAttempts: 3, baseDelay: 0.01)
        operation.onEnd { _ in }
        try await Self.$awaitingTask.withValue("caller") { _ = try await operation.run() }
        #expect(stage.seen.withLock { $0 } == ["caller", "caller", "caller"])
        #expect(operation.state == .successFinished)
    }

    /// The awaiting task is cancelled while the transfer runs: `run()` returns, the operation
    /// is cancelled once, and the transfer's late end is still carried out (here or on a queue).
    @Test(arguments: TestEngine.allCases) func aCancelledAwaitingTaskLeavesNoEndBehind(_ engine: TestEngine) async throws {
        let session = engine.makeSession()
        let ended = Locked(0)
        let operation = DTO.get(try await TestServer.url("delay?seconds=2")).on(session)
        operation.onEnd { _ in ended.withLock { $0 += 1 } }
        let task = Task { _ = try? await operation.run() }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        await task.value
        #expect(operation.state == .cancelled)
        #expect(ended.withLock { $0 } == 1)
        #expect(await eventually { session.deadlines.count == 0 })
    }
}
