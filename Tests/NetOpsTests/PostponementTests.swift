import Foundation
import Testing

@testable import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
import TestSupport
#endif

/// Parked operations keep their identity: the same object is replayed or failed, and its
/// waiters stay blocked until it really ends.
///
/// Shared side of the process gate: these tests park operations. The one test that calls
/// `performPostponedOperations`, which replays every parked operation of the process, holds
/// the gate exclusively, so no other test's parked operation is there to be replayed (and no
/// other test's replay takes one of its own). Waiting for the gate counts against the time limit.
@Suite(.timeLimit(.minutes(5)), .processGate(.shared))
struct PostponementTests {
    /// Parks every response until the request carries `X-Credential: fresh`.
    struct NeedsFreshCredential: OperationInterceptor {
        func judge(_ response: HTTPURLResponse, body: Data, for operation: BaseOperation) -> ResponseDecision {
            let sent = String(decoding: body, as: UTF8.self)
            return sent.contains(#""x-credential":"fresh""#) ? .useDefault : .postpone
        }
    }

    static func parkedOperation(_ engine: TestEngine) async throws -> DTO {
        let operation = DTO.get(try await TestServer.url("echo")).on(engine)
        operation.interceptor = NeedsFreshCredential()
        operation.start()
        let deadline = Date(timeIntervalSinceNow: 10)
        // Parked first (under the operation's lock), then listed in the registry.
        while !operation.isPostponed || !BaseOperation.postponedOperations.contains(where: { $0 === operation }), Date() < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        return operation
    }

    @Test(.processGate(.exclusive), arguments: TestEngine.allCases)
    func replayRebuildsTheRequestAndKeepsTheObject(_ engine: TestEngine) async throws {
        let completions = Counter()
        let operation = try await Self.parkedOperation(engine)
        operation.onCompletion { _ in completions.increment() }
        #expect(operation.isPostponed)
        #expect(operation.state == .working)
        #expect(operation.isExecuting)
        #expect(BaseOperation.postponedOperations.contains { $0 === operation })

        let replayed = BaseOperation.performPostponedOperations { $0.setValue("fresh", forHTTPHeaderField: "X-Credential") }
        #expect(replayed.contains { $0 === operation })
        await operation.finished()
        #expect(operation.state == .successFinished)
        #expect(operation.attemptsMade == 2)
        #expect(completions.value == 1)
        #expect(!BaseOperation.postponedOperations.contains { $0 === operation })
    }

    @Test(arguments: TestEngine.allCases) func syncWaiterStaysBlockedUntilTheReplayEnds(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("echo")
        let returned = Locked(false)
        let operation = DTO.get(url).on(engine)
        operation.interceptor = NeedsFreshCredential()
        let waiter = Task {
            await onThreads(1) { _ in
                operation.syncStart()
                returned.withLock { $0 = true }
            }
        }
        #expect(await eventually { operation.isPostponed })
        try await Task.sleep(for: .milliseconds(200))
        #expect(!returned.withLock { $0 }, "syncStart returned while the operation was parked")
        #expect(!operation.mayReleaseSyncWaiter)
        operation.replay { $0.setValue("fresh", forHTTPHeaderField: "X-Credential") }
        await waiter.value
        #expect(returned.withLock { $0 })
        #expect(operation.state == .successFinished)
        // Replayed directly, not through `performPostponedOperations`: it left the registry too.
        #expect(!BaseOperation.postponedOperations.contains { $0 === operation })
    }

    @Test(arguments: TestEngine.allCases) func failingParkedOperationsReleasesEveryWaiter(_ engine: TestEngine) async throws {
        let operations = try await withThrowingTaskGroup(of: DTO.self) { group in
            for _ in 0..<10 { group.addTask { try await Self.parkedOperation(engine) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(operations.allSatisfy { $0.isPostponed })
        let refusal = NetOpsError(.authenticationFailed(reason: "refresh refused"), url: nil)
        for operation in operations where BaseOperation.take(operation) { operation.failPostponed(with: refusal) }
        for operation in operations { await operation.finished() }
        let allFailed = operations.allSatisfy { $0.state == .failedFinished && $0.error == refusal }
        #expect(allFailed)
        #expect(operations.allSatisfy { $0.mayReleaseSyncWaiter })
    }

    /// Exclusive: `removeAllPostponedOperations` ends every parked operation of the process.
    @Test(.processGate(.exclusive), arguments: TestEngine.allCases)
    func removeAllPostponedOperationsEndsThemFirstParkedFirst(_ engine: TestEngine) async throws {
        let order = Recorder<Int>()
        var operations: [DTO] = []
        for index in 0..<4 {
            let operation = try await Self.parkedOperation(engine)
            operation.onCompletion { _ in order.append(index) }
            operations.append(operation)
        }
        #expect(BaseOperation.postponedOperations.map(ObjectIdentifier.init) == operations.map(ObjectIdentifier.init))
        let refusal = NetOpsError(.authenticationFailed(reason: "refresh refused"), url: nil)
        let removed = BaseOperation.removeAllPostponedOperations(failingWith: refusal)
        #expect(removed.map(ObjectIdentifier.init) == operations.map(ObjectIdentifier.init))
        // Ended on the calling thread, before the call returned, in the order they parked.
        #expect(order.all == [0, 1, 2, 3])
        #expect(operations.allSatisfy { $0.state == .failedFinished && $0.error == refusal })
        #expect(BaseOperation.postponedOperations.isEmpty)
        #expect(BaseOperation.removeAllPostponedOperations(failingWith: refusal).isEmpty)
    }

    /// Exclusive: `releaseSyncWaitersOfPostponed` ends every parked operation of the process.
    @Test(.processGate(.exclusive), arguments: TestEngine.allCases)
    func releaseSyncWaitersOfPostponedEndsTheParkedAndReturnsTheirWaiters(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("echo")).on(engine)
        operation.interceptor = NeedsFreshCredential()
        let returned = Locked(false)
        let waiter = Task {
            try await offCooperativePool {
                operation.syncStart()
                returned.withLock { $0 = true }
            }
        }
        #expect(await eventually { operation.isPostponed && BaseOperation.postponedOperations.contains { $0 === operation } })
        #expect(!returned.withLock { $0 })
        let released = BaseOperation.releaseSyncWaitersOfPostponed()
        #expect(released.contains { $0 === operation })
        try await waiter.value
        #expect(returned.withLock { $0 })
        #expect(operation.state == .failedFinished)
        #expect(operation.mayReleaseSyncWaiter)
        guard case .authenticationFailed = operation.error?.kind else {
            Issue.record("expected authenticationFailed, got \(String(describing: operation.error))")
            return
        }
        #expect(!BaseOperation.postponedOperations.contains { $0 === operation })
    }

    @Test(arguments: TestEngine.allCases) func postponeAWorkingOperationByHand(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("delay?seconds=5")).on(engine)
        #expect(!BaseOperation.postpone(operation), "not started yet")
        operation.start()
        #expect(BaseOperation.postpone(operation))
        #expect(operation.isPostponed)
        operation.cancel()
        #expect(operation.state == .cancelled)
        #expect(!BaseOperation.postponedOperations.contains { $0 === operation })
    }
}
