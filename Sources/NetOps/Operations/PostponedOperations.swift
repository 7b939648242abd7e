/// The operations parked until a fresh credential exists, in the order they parked.
///
/// An operation parks itself (its interceptor asked it to, or `BaseOperation.postpone(_:)`
/// did); it stays the same object — same owner, completion, delegate and progress — and is
/// either replayed or failed as a whole with the others. Both happen first-parked first: when a
/// refresh fails, the first call that needed the token ends first, so a service that shows one
/// alert shows it for that call.
final class PostponedOperations: Sendable {
    /// The process-wide registry behind `BaseOperation.postponedOperations`.
    static let shared = PostponedOperations()

    private struct Parked {
        /// Each operation parked gets the next number: the order to replay or fail them in.
        var next: UInt64 = 0
        var entries: [ObjectIdentifier: (order: UInt64, operation: BaseOperation)] = [:]

        var ordered: [BaseOperation] {
            entries.values.sorted { $0.order < $1.order }.map(\.operation)
        }
    }

    private let parked = Locked(Parked())

    func add(_ operation: BaseOperation) {
        parked.withLock { parked in
            parked.entries[ObjectIdentifier(operation)] = (parked.next, operation)
            parked.next += 1
        }
        // A cancel may have unparked it before it got here.
        if !operation.isPostponed { remove(operation) }
    }

    func remove(_ operation: BaseOperation) {
        parked.withLock { _ = $0.entries.removeValue(forKey: ObjectIdentifier(operation)) }
    }

    /// Removes `operation` and says whether it was there: exactly one caller wins.
    func take(_ operation: BaseOperation) -> Bool {
        parked.withLock { $0.entries.removeValue(forKey: ObjectIdentifier(operation)) != nil }
    }

    /// Removes and returns every parked operation, first parked first.
    func takeAll() -> [BaseOperation] {
        parked.withLock { parked in
            let all = parked.ordered
            parked.entries.removeAll()
            return all
        }
    }

    /// Every parked operation, first parked first.
    var all: [BaseOperation] {
        parked.withLock { $0.ordered }
    }
}
