/// The operations that have started and not yet ended, and those kept alive by `retainAndStart()`.
enum OperationRegistry {
    private struct WeakOperation {
        weak var operation: BaseOperation?
    }

    private static let active = Locked<[ObjectIdentifier: WeakOperation]>([:])
    private static let retained = Locked<[ObjectIdentifier: BaseOperation]>([:])

    static func track(_ operation: BaseOperation) {
        active.withLock { $0[ObjectIdentifier(operation)] = WeakOperation(operation: operation) }
    }

    static func untrack(_ operation: BaseOperation) {
        active.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(operation)) }
    }

    /// The operations working or suspended right now.
    static func activeOperations() -> [BaseOperation] {
        active.withLock { $0.values.compactMap(\.operation) }
    }

    static func retain(_ operation: BaseOperation) {
        retained.withLock { $0[ObjectIdentifier(operation)] = operation }
    }

    static func release(_ operation: BaseOperation) {
        retained.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(operation)) }
    }
}
