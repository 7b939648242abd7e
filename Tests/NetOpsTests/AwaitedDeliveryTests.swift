import DemoServer
import Foundation
import NIOPosix
import NetOpsNIO
import TestSupport
import Testing

@testable import NetOps

/// The end of an awaited operation is delivered where its transfer ends, with no dispatch hop;
/// as soon as someone who may block listens (a completion closure), it goes to a queue of its
/// own, never an event loop.
@Suite(.timeLimit(.minutes(1)))
struct AwaitedDeliveryTests {
    /// Notes, when the chain judges the attempt, whether it runs on an event loop.
    struct WhereJudged: NetworkMiddleware {
        let onLoop = Locked<[Bool]>([])
        func judge(_ outcome: AttemptOutcome, verdict: inout Verdict, context: MiddlewareContext) throws {
            onLoop.withLock { $0.append(MultiThreadedEventLoopGroup.currentEventLoop != nil) }
        }
    }

    @Test func anAwaitedOperationEndsOnTheEventLoop() async throws {
        let session = TestEngine.nio.makeSession()
        let stage = WhereJudged()
        let operation = DTO.get(try await TestServer.url("json")).on(session).use(stage)
        try await operation.run()
        #expect(stage.onLoop.withLock { $0 } == [true])
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
}
