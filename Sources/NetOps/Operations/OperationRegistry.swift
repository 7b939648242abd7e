/// The operations (and groups) that have started and not yet ended, and the operations kept
/// alive by `retainAndStart()`.
enum OperationRegistry {
    private struct WeakOperation {
        weak var operation: (any OwnedOperation)?
    }

    private static let active = Locked<[ObjectIdentifier: WeakOperation]>([:])
    private static let retained = Locked<[ObjectIdentifier: any OwnedOperation]>([:])

    /// Lists a working operation. Call without holding the operation's lock; `isFinal` is asked
    /// after listing it, so an operation that ended meanwhile (and may have unlisted itself
    /// already) is unlisted again instead of staying listed.
    static func track(_ operation: some OwnedOperation, isFinal: () -> Bool) {
        active.withLock { $0[ObjectIdentifier(operation)] = WeakOperation(operation: operation) }
        if isFinal() { untrack(operation) }
    }

    static func untrack(_ operation: some OwnedOperation) {
        active.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(operation)) }
    }

    /// The operations and groups working or suspended right now.
    static func activeOperations() -> [any OwnedOperation] {
        active.withLock { $0.values.compactMap(\.operation) }
    }

    static func retain(_ operation: some OwnedOperation) {
        retained.withLock { $0[ObjectIdentifier(operation)] = operation }
    }

    static func release(_ operation: some OwnedOperation) {
        retained.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(operation)) }
    }
}
