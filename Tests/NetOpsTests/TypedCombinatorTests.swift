import Foundation
import NetOps
import TestSupport
import Testing

/// `combine` of operations of different types, `map` / `mapError` / `catch`, and `result` on
/// plain operations, against DemoServer.
@Suite(.timeLimit(.minutes(3)))
struct TypedCombinatorTests {
    /// An error of the caller's own, to see `mapError` replace the operation's.
    struct ServiceFailure: Error, Equatable {
        var status: Int?
    }

    @Test(arguments: TestEngine.allCases) func combineReturnsATypedTupleInOrder(_ engine: TestEngine) async throws {
        let small = try await TestServer.url("bytes/10")
        let large = try await TestServer.url("bytes/1000")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netops-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (data, count, download) = try await combine(
            DTO.get(large).on(engine),
            GO<Int> { context in try await context.run(DTO.get(small).on(engine)).receivedData.count },
            DO.get(large, to: directory.appendingPathComponent("large.bin")).on(engine))
        #expect(data.receivedData.count == 1000)
        #expect(count == 10)
        #expect(try Data(contentsOf: download.destination) == data.receivedData)
    }

    @Test(arguments: TestEngine.allCases) func combineFailsAtTheFirstFailureAndCancelsTheRest(_ engine: TestEngine) async throws {
        // A minute: on a loaded machine the 500 may take seconds, and the slow call must still
        // be running when it comes.
        let slow = DTO.get(try await TestServer.url("delay?seconds=60")).on(engine)
        let failing = DTO.get(try await TestServer.url("status/500")).on(engine)
        do {
            _ = try await combine(slow, failing)
            Issue.record("combine succeeded")
        } catch let error as NetOpsError {
            #expect(error.httpStatus == 500)
        }
        #expect(failing.state == .failedFinished)
        #expect(await eventually { slow.state == .cancelled }, "the one still running is cancelled")
    }

    @Test(arguments: TestEngine.allCases) func combineInAGroupBelongsToTheGroup(_ engine: TestEngine) async throws {
        let slowURL = try await TestServer.url("delay?seconds=60")
        let first = DTO.get(slowURL).on(engine)
        let second = DTO.get(slowURL).on(engine)
        let group = GO<Int> { _ in
            let (one, two) = try await combine(first, second)
            return one.receivedData.count + two.receivedData.count
        }
        group.start()
        #expect(await eventually { group.progress.totalOperations == 2 })
        group.cancel()
        #expect(first.state == .cancelled && second.state == .cancelled)
    }

    @Test(arguments: TestEngine.allCases) func resultOfPlainOperations(_ engine: TestEngine) async throws {
        let succeeding = DTO.get(try await TestServer.url("bytes/64")).on(engine)
        #expect(succeeding.result == nil, "no result before it ends")
        try await succeeding.run()
        let succeeded = try #require(try succeeding.result?.get())
        #expect(succeeded === succeeding && succeeded.receivedData.count == 64)

        let failing = DTO.get(try await TestServer.url("status/404")).on(engine)
        _ = try? await failing.run()
        guard case let .failure(error)? = failing.result else {
            Issue.record("a failed operation's result is \(String(describing: failing.result))")
            return
        }
        #expect(error.httpStatus == 404)

        let cancelled = DTO.get(try await TestServer.url("bytes/64")).on(engine)
        cancelled.cancel()
        guard case let .failure(cancellation)? = cancelled.result else {
            Issue.record("a cancelled operation's result is \(String(describing: cancelled.result))")
            return
        }
        #expect(cancellation.kind == .cancelled)
    }

    @Test(arguments: TestEngine.allCases) func mapTransformsTheOutput(_ engine: TestEngine) async throws {
        let count = try await DTO.get(try await TestServer.url("bytes/300")).on(engine).map { $0.receivedData.count }
        #expect(count == 300)
        let doubled = try await GO<Int> { _ in 21 }.map { $0 * 2 }
        #expect(doubled == 42)
        await #expect(throws: ServiceFailure.self) {
            try await DTO.get(try await TestServer.url("bytes/3")).on(engine).map { _ -> Int in throw ServiceFailure() }
        }
    }

    @Test(arguments: TestEngine.allCases) func mapErrorReplacesTheError(_ engine: TestEngine) async throws {
        let failing = DTO.get(try await TestServer.url("status/503")).on(engine)
        do throws(ServiceFailure) {
            _ = try await failing.mapError { ServiceFailure(status: ($0 as? NetOpsError)?.httpStatus) }
            Issue.record("mapError of a failing operation returned")
        } catch {
            // Typed throws: `error` is a ServiceFailure.
            #expect(error == ServiceFailure(status: 503))
        }
        let succeeding = DTO.get(try await TestServer.url("bytes/5")).on(engine)
        let output = try await succeeding.mapError { _ in ServiceFailure() }
        #expect(output.receivedData.count == 5)
    }

    @Test(arguments: TestEngine.allCases) func catchRecoversFromAFailure(_ engine: TestEngine) async throws {
        let recovered = await GO<Int> { context in
            try await context.run(DTO.get(try await TestServer.url("status/500")).on(engine)).receivedData.count
        }.catch { error in (error as? NetOpsError)?.httpStatus ?? 0 }
        #expect(recovered == 500)
        let fine = await GO<Int> { _ in 7 }.catch { _ in -1 }
        #expect(fine == 7)
        let fallback = DTO.get(try await TestServer.url("bytes/8")).on(engine)
        let answer = try await DTO.get(try await TestServer.url("status/404")).on(engine).catch { _ in
            try await fallback.run()
        }
        #expect(answer === fallback && answer.receivedData.count == 8)
    }
}
