import Foundation

extension GroupOperation {
    /// The object this group works for (held weakly). `BaseOperation.cancelAllOperations(ownedBy:in:)`
    /// cancels the group — and with it everything its body runs — also from the owner's `deinit`.
    public var owner: AnyObject? {
        get { storage.withLock { $0.owner } }
        set {
            storage.withLock {
                $0.owner = newValue
                $0.ownerIdentifier = newValue.map(ObjectIdentifier.init)
            }
        }
    }

    /// A name of what this group works for; `BaseOperation.cancelAllOperations(ownerID:in:)`
    /// cancels the group and everything its body runs.
    public var ownerID: String? {
        get { storage.withLock { $0.ownerID } }
        set { storage.withLock { $0.ownerID = newValue } }
    }
}

extension GroupOperation: OwnedOperation {
    func isOwned(by match: OwnerMatch) -> Bool {
        storage.withLock { match.matches($0.owner, identifier: $0.ownerIdentifier) }
    }
}
