import Foundation

/// What `cancelAllOperations(ownedBy:)` and `(ownerID:)` look at: plain operations and groups.
protocol OwnedOperation: AnyObject, Sendable {
    /// Whether the operation works for the owner `match` describes.
    func isOwned(by match: OwnerMatch) -> Bool
    /// The name of what the operation works for.
    var ownerID: String? { get }
    /// True once the operation reached a final state.
    var isFinishedOrCancelled: Bool { get }
    /// Cancels the operation (and, for a group, everything it runs).
    func cancel()
}

extension BaseOperation: OwnedOperation {}
