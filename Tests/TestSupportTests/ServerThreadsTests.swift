import Foundation
import NetOps
import TestSupport
import Testing

/// The test server's handlers run on threads of its own, not on the test process's cooperative
/// pool: timing tests failed in CI when the handlers queued behind the jobs of a hundred tests
/// starting at once (a request waited 3 s for its answer).
@Suite(.timeLimit(.minutes(1)))
struct ServerThreadsTests {
    @Test(arguments: TestEngine.allCases) func handlersRunOnTheServersThreads(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("server-threads")).on(engine)
        try await operation.run()
        #expect(String(decoding: operation.receivedData, as: UTF8.self) == #"{"serverThreads":true}"#)
    }
}
