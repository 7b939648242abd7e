/// The operations parked until a fresh credential exists.
///
/// An operation parks itself (its interceptor asked it to, or `BaseOperation.postpone(_:)`
/// did); it stays the same object — same owner, completion, delegate and progress — and is
/// either replayed or failed as a whole with the others.
final class PostponedOperations: Sendable {
    /// The process-wide registry behind `BaseOperation.postponedOperations`.
    static let shared = PostponedOperations()

    private let parked = Locked<[ObjectIdentifier: BaseOperation]>([:])

    func add(_ operation: BaseOperation) {
        parked.withLock { $0[ObjectIdentifier(operation)] = operation }
        // A cancel may have unparked it before it got here.
        if !operation.isPostponed { remove(operation) }
    }

    func remove(_ operation: BaseOperation) {
        parked.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(operation)) }
    }

    /// Removes `operation` and says whether it was there: exactly one caller wins.
    func take(_ operation: BaseOperation) -> Bool {
        parked.withLock { $0.removeValue(forKey: ObjectIdentifier(operation)) != nil }
    }

    /// Removes and returns every parked operation.
    func takeAll() -> [BaseOperation] {
        parked.withLock { table in
            let all = Array(table.values)
            table.removeAll()
            return all
        }
    }

    var all: [BaseOperation] {
        parked.withLock { Array($0.values) }
    }
}
