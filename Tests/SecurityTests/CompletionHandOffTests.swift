import Foundation
import NetOps
import TestSupport
import Testing

/// A completion handler may block, as `syncStart()` does: it never runs where the transfers of
/// its session are delivered, so an operation it waits for still moves.
@Suite("Security: completion hand-off", .processGate(.shared))
struct CompletionHandOffTests {
    @Test(arguments: TestEngine.allCases)
    func aCompletionHandlerMayWaitForAnotherOperationOfItsSession(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("json")
        let outer = DTO.get(url).on(engine)
        let inner: DTO = await withCheckedContinuation { continuation in
            outer.onCompletion { _ in
                let inner = DTO.get(url).on(engine)
                // On the old URLSession engine the handler held the session's one delegate queue:
                // the inner operation stalled until this idle timeout. 20 s: above the 5 s the
                // in-process server took to answer in a loaded parallel run.
                inner.idleTimeout = 20
                inner.syncStart()
                continuation.resume(returning: inner)
            }
            outer.start()
        }
        #expect(inner.state == .successFinished, "\(String(describing: inner.error))")
        #expect(outer.state == .successFinished)
    }
}
