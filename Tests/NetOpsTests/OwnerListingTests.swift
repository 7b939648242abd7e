import Foundation
import TestSupport
import Testing

@testable import NetOps

/// Only operations with an owner or an owner ID are listed for `cancelAllOperations`: one that
/// gets its owner while it runs is listed from then on, one without stays out of the registry,
/// and a listed one leaves it when it ends.
@Suite(.timeLimit(.minutes(2)))
struct OwnerListingTests {
    final class Owner {}

    @Test(arguments: TestEngine.allCases) func anOwnerGivenWhileRunningStillCancels(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("delay?seconds=5")
        let owner = Owner()
        let operation = DTO.get(url).on(engine)
        operation.start()
        #expect(!operation.withLock { operation.storage.ownership.isListed })
        operation.owner = owner
        #expect(operation.withLock { operation.storage.ownership.isListed })
        #expect(BaseOperation.cancelAllOperations(ownedBy: owner) == 1)
        await operation.finished()
        #expect(operation.state == .cancelled)
        // Ended: no longer listed, so a second call finds nothing.
        #expect(BaseOperation.cancelAllOperations(ownedBy: owner) == 0)
    }

    @Test(arguments: TestEngine.allCases) func anOwnerIDGivenWhileRunningStillCancels(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("delay?seconds=5")
        let ownerID = "listing-\(UUID().uuidString)"
        let operation = DTO.get(url).on(engine)
        operation.start()
        operation.ownerID = ownerID
        #expect(BaseOperation.cancelAllOperations(ownerID: ownerID) == 1)
        await operation.finished()
        #expect(operation.state == .cancelled)
    }

    @Test(arguments: TestEngine.allCases) func anOperationWithoutOwnerIsNeverListed(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("json")).on(engine)
        try await operation.run()
        #expect(!operation.withLock { operation.storage.ownership.isListed })
        #expect(
            !OperationRegistry.activeOperations().contains { ($0 as? BaseOperation) === operation })
    }
}
