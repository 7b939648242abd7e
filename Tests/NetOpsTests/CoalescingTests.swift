import Foundation
import TestSupport
import Testing

@testable import NetOps
@testable import NetOpsHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Identical requests in flight at once share one network transfer (`RequestCoalescer`), and
/// each caller keeps its own result and its own cancellation.
@Suite(.timeLimit(.minutes(2)))
struct CoalescingTests {
    /// A key of its own for each test, so the server's counts do not mix.
    static func counted(_ query: String = "") async throws -> (url: URL, key: String) {
        let key = UUID().uuidString
        return (try await TestServer.url("counted/\(key)\(query)"), key)
    }

    /// The requests the server answered for `key`.
    static func served(_ key: String) async throws -> Int {
        let operation = DTO.get(try await TestServer.url("counted-stats/\(key)"))
        try await operation.run()
        let object = try JSONSerialization.jsonObject(with: operation.receivedData) as? [String: Any]
        return try #require(object?["served"] as? Int)
    }

    @Test(arguments: TestEngine.allCases) func identicalGetsStartedTogetherShareOneRequest(_ engine: TestEngine) async throws {
        let (url, key) = try await Self.counted("?delay=2")
        let coalescer = RequestCoalescer()
        let operations = (0..<20).map { _ in DTO.get(url).use(coalescer).on(engine) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for operation in operations { group.addTask { try await operation.run() } }
            try await group.waitForAll()
        }
        #expect(try await Self.served(key) == 1)
        #expect(coalescer.statistics == RequestCoalescer.Statistics(transfersOpened: 1, requestsJoined: 19))
        let expected = #"{"key":"\#(key)","served":1}"#
        for operation in operations {
            #expect(operation.statusCode == 200)
            #expect(String(decoding: operation.receivedData, as: UTF8.self) == expected)
        }
        #expect(operations.filter { operation in operation.values[RequestCoalescer.JoinedKey.self] == true }.count == 19)
        #expect(coalescer.transfersInFlight == 0)
    }

    @Test(arguments: TestEngine.allCases) func cancellingTheFirstCallerLeavesTheOthersTheirAnswer(_ engine: TestEngine) async throws {
        let (url, key) = try await Self.counted("?delay=3")
        let coalescer = RequestCoalescer()
        let first = DTO.get(url).use(coalescer).on(engine)
        first.start()
        let others = (0..<4).map { _ in DTO.get(url).use(coalescer).on(engine) }
        for operation in others { operation.start() }
        #expect(await eventually(within: 60) { coalescer.statistics.requestsJoined == 4 })
        first.cancel()
        for operation in others { await operation.finished() }
        await first.finished()
        #expect(first.state == .cancelled)
        for operation in others {
            #expect(operation.state == .successFinished)
            #expect(operation.statusCode == 200)
        }
        #expect(try await Self.served(key) == 1)
    }

    @Test(arguments: TestEngine.allCases) func cancellingEveryCallerStopsTheRequest(_ engine: TestEngine) async throws {
        let (url, key) = try await Self.counted("?delay=3")
        let coalescer = RequestCoalescer()
        let operations = (0..<3).map { _ in DTO.get(url).use(coalescer).on(engine) }
        for operation in operations { operation.start() }
        #expect(await eventually(within: 60) { coalescer.statistics.requestsJoined == 2 })
        for operation in operations { operation.cancel() }
        for operation in operations { await operation.finished() }
        #expect(operations.allSatisfy { $0.state == .cancelled })
        #expect(coalescer.transfersInFlight == 0, "nobody may join a transfer that lost its callers")
        // The next identical request opens a transfer of its own, and gets its answer.
        let (fast, _) = try await Self.counted()
        let later = DTO.get(fast).use(coalescer).on(engine)
        try await later.run()
        #expect(coalescer.statistics.transfersOpened == 2)
        #expect(try await Self.served(key) <= 1)
    }

    @Test(arguments: TestEngine.allCases) func differentTokensAndUnsafeMethodsDoNotShare(_ engine: TestEngine) async throws {
        let (url, key) = try await Self.counted("?delay=2")
        let coalescer = RequestCoalescer()
        let alice = DTO.get(url, headers: ["Authorization": "Bearer alice"]).use(coalescer).on(engine)
        let bob = DTO.get(url, headers: ["Authorization": "Bearer bob"]).use(coalescer).on(engine)
        // Trace context differs on every request and is left out of the comparison.
        let traceparent = "00-\(String(repeating: "a", count: 32))-\(String(repeating: "b", count: 16))-01"
        let traced = DTO.get(url, headers: ["Authorization": "Bearer bob", "traceparent": traceparent]).use(coalescer).on(engine)
        let operations = [alice, bob, traced]
        for operation in operations { operation.start() }
        for operation in operations { await operation.finished() }
        #expect(operations.allSatisfy { $0.state == .successFinished })
        #expect(try await Self.served(key) == 2, "one request per token")
        #expect(coalescer.statistics == RequestCoalescer.Statistics(transfersOpened: 2, requestsJoined: 1))

        let (postURL, postKey) = try await Self.counted()
        var request = URLRequest(url: postURL)
        request.httpMethod = "POST"
        let posts = (0..<2).map { _ in DTO(request: request).use(coalescer).on(engine) }
        for operation in posts { operation.start() }
        for operation in posts { await operation.finished() }
        #expect(try await Self.served(postKey) == 2, "a POST is never shared")
    }

    /// An operation that joins while the body arrives gets the head and the bytes before it,
    /// then the rest: the whole body, byte for byte.
    @Test(arguments: TestEngine.allCases) func aLateJoinerGetsTheWholeBody(_ engine: TestEngine) async throws {
        let size = 1 << 20
        // 16 chunks 0.25 s apart: the first transfer is still in flight when the test, however
        // slow a loaded machine makes it, sees its first bytes.
        let (url, key) = try await Self.counted("?bytes=\(size)&pause=0.25")
        let coalescer = RequestCoalescer()
        let first = DTO.get(url).use(coalescer).on(engine)
        first.start()
        #expect(await eventually(within: 60) { first.progress.bytesReceived > 0 })
        let late = DTO.get(url).use(coalescer).on(engine)
        try await late.run()
        await first.finished()
        #expect(first.state == .successFinished && late.state == .successFinished)
        #expect(late.receivedData.count == size && first.receivedData == late.receivedData)
        #expect(coalescer.statistics.requestsJoined == 1)
        #expect(try await Self.served(key) == 1)
    }

    /// Past the backlog's bound, an identical request opens a transfer of its own.
    @Test(arguments: TestEngine.allCases) func aBodyPastTheBacklogBoundIsNotJoined(_ engine: TestEngine) async throws {
        let size = 1 << 20
        let (url, key) = try await Self.counted("?bytes=\(size)&pause=0.25")
        let coalescer = RequestCoalescer(configuration: .init(maximumBacklogBytes: 100 << 10))
        let first = DTO.get(url).use(coalescer).on(engine)
        first.start()
        #expect(await eventually(within: 60) { first.progress.bytesReceived > 200 << 10 })
        let late = DTO.get(url).use(coalescer).on(engine)
        try await late.run()
        await first.finished()
        #expect(late.receivedData.count == size && first.receivedData.count == size)
        #expect(coalescer.statistics == RequestCoalescer.Statistics(transfersOpened: 2, requestsJoined: 0))
        #expect(try await Self.served(key) == 2)
    }

    /// Each caller judges the shared answer by its own rules: a 503 one caller retries is a
    /// failure for a caller that does not.
    @Test(arguments: TestEngine.allCases) func eachCallerJudgesTheSharedAnswerItself(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("delay?seconds=2")
        let coalescer = RequestCoalescer()
        let strict = DTO.get(url).use(coalescer).on(engine)
        strict.acceptableStatusCodes = [201]
        let lenient = DTO.get(url).use(coalescer).on(engine)
        strict.start()
        lenient.start()
        await strict.finished()
        await lenient.finished()
        #expect(strict.error?.kind == .httpStatus(200))
        #expect(lenient.state == .successFinished)
        #expect(coalescer.statistics.requestsJoined == 1)
    }
}
