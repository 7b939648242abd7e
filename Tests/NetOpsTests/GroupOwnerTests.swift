import Foundation
import TestSupport
import Testing

@testable import NetOps

/// Groups have owners: `cancelAllOperations(ownedBy:)` and `(ownerID:)` reach a group and, through
/// it, every operation its body runs — also from the owner's `deinit`.
@Suite(.timeLimit(.minutes(2)))
struct GroupOwnerTests {
    /// An owner that cancels its operations from its `deinit`.
    typealias Screen = CancellingOwner

    /// A group whose body runs one slow request and hands it out through `running`.
    static func slowGroup(_ engine: TestEngine, running: Locked<DTO?>) async throws -> GO<Int> {
        let slow = try await TestServer.url("delay?seconds=5")
        return GO<Int> { context in
            let operation = DTO.get(slow).on(engine)
            running.withLock { $0 = operation }
            return try await context.run(operation).receivedData.count
        }
    }

    @Test(arguments: TestEngine.allCases) func ownedByCancelsTheGroupAndWhatItRuns(_ engine: TestEngine) async throws {
        final class Owner {}
        let owner = Owner()
        let running = Locked<DTO?>(nil)
        let group = try await Self.slowGroup(engine, running: running)
        group.owner = owner
        #expect(group.owner === owner)
        group.start()
        #expect(await eventually { running.withLock { $0 }?.state == .working })
        #expect(BaseOperation.cancelAllOperations(ownedBy: Owner()) == 0)
        #expect(BaseOperation.cancelAllOperations(ownedBy: owner) == 1)
        #expect(group.state == .cancelled)
        #expect(running.withLock { $0 }?.state == .cancelled)
    }

    @Test(arguments: TestEngine.allCases) func ownerIDCancelsTheGroupAndWhatItRuns(_ engine: TestEngine) async throws {
        let running = Locked<DTO?>(nil)
        let group = try await Self.slowGroup(engine, running: running)
        let ownerID = "group-\(UUID().uuidString)"
        group.ownerID = ownerID
        group.start()
        #expect(await eventually { running.withLock { $0 }?.state == .working })
        #expect(BaseOperation.cancelAllOperations(ownerID: ownerID) == 1)
        #expect(group.state == .cancelled)
        #expect(running.withLock { $0 }?.state == .cancelled)
        #expect(BaseOperation.cancelAllOperations(ownerID: ownerID) == 0, "an ended group is not listed")
    }

    @Test(arguments: TestEngine.allCases) func theOwnersDeinitCancelsItsQueuedGroups(_ engine: TestEngine) async throws {
        let cancelled = Locked<Int?>(nil)
        let queue = OperationQueue()
        let running = Locked<DTO?>(nil)
        let group = try await Self.slowGroup(engine, running: running)
        let waiting = try await Self.slowGroup(engine, running: Locked(nil))
        waiting.addDependency(group)
        do {
            let screen = Screen(cancelled: cancelled, queue: queue)
            group.owner = screen
            waiting.owner = screen
            queue.addOperation(group)
            queue.addOperation(waiting)
            #expect(await eventually { running.withLock { $0 }?.state == .working })
            withExtendedLifetime(screen) {}
        }
        #expect(cancelled.withLock { $0 } == 2, "one running, one waiting for it")
        #expect(group.state == .cancelled)
        #expect(waiting.state == .cancelled)
        #expect(running.withLock { $0 }?.state == .cancelled)
        #expect(await eventually { queue.operationCount == 0 })
    }
}
