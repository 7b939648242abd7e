import Foundation

/// One made operation, with the two ways a lane may run it.
struct ChaosWork: Sendable {
    /// The operation (a `BaseOperation` or a `GroupOperation`).
    let operation: Operation
    /// Its id in the ledger.
    let id: Int
    /// `syncStart()`: blocks the calling thread until the operation is final.
    let syncStart: @Sendable () -> Void
    /// `try await run()`, its error ignored.
    let run: @Sendable () async -> Void
}

/// An object that owns operations, so that `cancelAllOperations(ownedBy:)` has something to
/// cancel wholesale.
final class ChaosOwner: Sendable {
    let name: String

    init(name: String) {
        self.name = name
    }
}
