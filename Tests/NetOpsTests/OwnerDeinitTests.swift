import Foundation
import TestSupport
import Testing

@testable import NetOps

/// `cancelAllOperations(ownedBy: self)` from the owner's `deinit`, where its operations' weak
/// references to it already read nil.
@Suite(.timeLimit(.minutes(2)))
struct OwnerDeinitTests {
    /// An owner that cancels its operations from its `deinit`.
    typealias Screen = CancellingOwner

    /// A Foundation object as the owner: the same from its `deinit`.
    final class FoundationScreen: NSObject {
        let cancelled: Locked<Int?>

        init(cancelled: Locked<Int?>) {
            self.cancelled = cancelled
        }

        deinit {
            let count = BaseOperation.cancelAllOperations(ownedBy: self)
            cancelled.withLock { $0 = count }
        }
    }

    @Test(arguments: TestEngine.allCases) func aFoundationOwnersDeinitCancelsToo(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("delay?seconds=5")
        let cancelled = Locked<Int?>(nil)
        let operation = DTO.get(url).on(engine)
        do {
            let screen = FoundationScreen(cancelled: cancelled)
            operation.owner = screen
            operation.start()
        }
        #expect(cancelled.withLock { $0 } == 1)
        #expect(operation.state == .cancelled)
    }

    /// An owner that does nothing when it goes away.
    final class Bystander {}

    @Test(arguments: TestEngine.allCases) func deinitCancelsStartedOperations(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("delay?seconds=5")
        let cancelled = Locked<Int?>(nil)
        let bystander = Bystander()
        let others = DTO.get(url).on(engine)
        others.owner = bystander
        others.start()
        let mine = (0..<3).map { _ in DTO.get(url).on(engine) }
        do {
            let screen = Screen(cancelled: cancelled)
            for operation in mine {
                operation.owner = screen
                operation.start()
            }
            #expect(mine.allSatisfy { $0.owner === screen })
        }
        #expect(cancelled.withLock { $0 } == 3)
        #expect(mine.allSatisfy { $0.state == .cancelled })
        #expect(others.state == .working)
        #expect(others.owner === bystander)
        others.cancel()
    }

    @Test(arguments: TestEngine.allCases) func deinitCancelsQueuedOperations(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("delay?seconds=5")
        let cancelled = Locked<Int?>(nil)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let mine = (0..<4).map { _ in DTO.get(url).on(engine) }
        do {
            let screen = Screen(cancelled: cancelled, queue: queue)
            for operation in mine {
                operation.owner = screen
                queue.addOperation(operation)
            }
            #expect(await eventually { mine[0].state == .working })
            withExtendedLifetime(screen) {}
        }
        #expect(cancelled.withLock { $0 } == 4, "one working and three waiting")
        #expect(mine.allSatisfy { $0.state == .cancelled })
        #expect(await eventually { queue.operationCount == 0 })
    }

    /// An operation whose owner went away without cancelling it is an orphan. A new, live
    /// object — even one at the dead owner's address — does not own it.
    @Test(arguments: TestEngine.allCases) func aLiveObjectAtAReusedAddressOwnsNoOrphan(_ engine: TestEngine) async throws {
        let orphan = DTO.get(try await TestServer.url("delay?seconds=5")).on(engine)
        var deadAddress: ObjectIdentifier?
        do {
            let owner = Bystander()
            deadAddress = ObjectIdentifier(owner)
            orphan.owner = owner
            orphan.start()
        }
        #expect(orphan.owner == nil)
        var reused = 0
        for _ in 0..<200 {
            let newcomer = Bystander()
            if ObjectIdentifier(newcomer) == deadAddress { reused += 1 }
            #expect(BaseOperation.cancelAllOperations(ownedBy: newcomer) == 0)
        }
        #expect(orphan.state == .working, "cancelled by a newcomer (address reused \(reused) times)")
        orphan.cancel()
    }

    /// The matching rule on its own: identity while alive, the recorded identifier only while
    /// deinitializing, and only for operations whose owner reads nil.
    @Test func ownerMatchRule() {
        let live = Bystander()
        let other = Bystander()
        let match = OwnerMatch(live)
        #expect(match.matches(live, identifier: ObjectIdentifier(live)))
        #expect(!match.matches(other, identifier: ObjectIdentifier(live)))
        #expect(!match.matches(nil, identifier: ObjectIdentifier(live)), "a live owner never matches by address")
        #expect(!match.matches(nil, identifier: nil))
    }
}
