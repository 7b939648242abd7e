import Foundation
import NetOps
import TestSupport
import Testing

/// `combineTolerance` of operations of different types: every operation ends whatever the
/// others do, and each gives a `Result` of its own output and failure types.
@Suite(.timeLimit(.minutes(3)))
struct TypedToleranceTests {
    struct ServiceFailure: Error, Equatable {
        var status: Int
    }

    /// An operation whose failure type is its own (as APILayer's `APIOperation` throws `APIError`).
    final class Refusing: TypedOperation, Sendable {
        let status: Int
        init(status: Int) { self.status = status }
        func run() async throws(ServiceFailure) -> Int { throw ServiceFailure(status: status) }
    }

    /// A failure leaves the others running: the second operation starts its request only after
    /// the first one failed, and still succeeds.
    @Test(arguments: TestEngine.allCases) func everyOperationEndsAndGivesItsTypedResult(_ engine: TestEngine) async throws {
        let small = try await TestServer.url("bytes/10")
        let large = try await TestServer.url("bytes/1000")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netops-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let firstFailed = AsyncGate()
        let missing = DTO.get(try await TestServer.url("status/404")).on(engine).onCompletion { _ in firstFailed.release() }
        let afterTheFailure = GO<Int> { context in
            await firstFailed.wait()
            return try await context.run(DTO.get(small).on(engine)).receivedData.count
        }
        let (notFound, count, download, refused, thrown) = await combineTolerance(
            missing,
            afterTheFailure,
            DO.get(large, to: directory.appendingPathComponent("large.bin")).on(engine),
            Refusing(status: 7),
            GO<Int> { _ in throw ServiceFailure(status: 9) })

        // The tuple's types: each operation's own output and failure.
        let _: Result<DataTaskOperation, any Error> = notFound
        let _: Result<Int, any Error> = count
        let _: Result<DownloadOperation, any Error> = download
        let _: Result<Int, ServiceFailure> = refused

        guard case let .failure(error) = notFound else {
            Issue.record("a 404 gave \(notFound)")
            return
        }
        #expect((error as? NetOpsError)?.httpStatus == 404)
        #expect(missing.state == .failedFinished)
        #expect(try count.get() == 10)
        #expect(afterTheFailure.state == .successFinished)
        #expect(try Data(contentsOf: download.get().destination).count == 1000)
        #expect(refused == .failure(ServiceFailure(status: 7)))
        #expect(throws: ServiceFailure(status: 9)) { try thrown.get() }
    }

    @Test func oneOperationGivesOneResult() async throws {
        let only = await combineTolerance(GO<Int> { _ in 5 })
        #expect(try only.get() == 5)
        let (first, second) = await combineTolerance(Refusing(status: 1), Refusing(status: 2))
        #expect(first == .failure(ServiceFailure(status: 1)) && second == .failure(ServiceFailure(status: 2)))
    }

    /// Cancelling the calling task cancels what still runs; each ends with its cancellation.
    @Test(arguments: TestEngine.allCases) func cancellingTheTaskCancelsEveryOperation(_ engine: TestEngine) async throws {
        let slowURL = try await TestServer.url("delay?seconds=60")
        let plain = DTO.get(slowURL).on(engine)
        let group = GO<Int> { context in try await context.run(DTO.get(slowURL).on(engine)).receivedData.count }
        let task = Task { await combineTolerance(plain, group) }
        #expect(await eventually { plain.state == .working && group.progress.totalOperations == 1 })
        task.cancel()
        let (plainResult, groupResult) = await task.value
        guard case let .failure(error) = plainResult, case .failure = groupResult else {
            Issue.record("cancelled operations gave \(plainResult) and \(groupResult)")
            return
        }
        #expect((error as? NetOpsError)?.kind == .cancelled)
        #expect(plain.state == .cancelled)
        #expect(group.state == .cancelled)
    }

    /// Called in a group's body, the operations are the group's: cancelling it cancels them.
    @Test(arguments: TestEngine.allCases) func inAGroupTheOperationsBelongToTheGroup(_ engine: TestEngine) async throws {
        let slowURL = try await TestServer.url("delay?seconds=60")
        let first = DTO.get(slowURL).on(engine)
        let second = DTO.get(slowURL).on(engine)
        let group = GO<Int> { _ in
            let (one, two) = await combineTolerance(first, second)
            return ((try? one.get()) == nil ? 0 : 1) + ((try? two.get()) == nil ? 0 : 1)
        }
        group.start()
        #expect(await eventually { group.progress.totalOperations == 2 })
        group.cancel()
        #expect(first.state == .cancelled && second.state == .cancelled)
    }
}
