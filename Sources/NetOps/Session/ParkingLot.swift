import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Operations parked until something they need exists (a fresh credential, a free slot of a
/// rate limit), in the order they parked: owned by whoever parks them.
///
/// Each session has one (`NetworkSession.parkingLot`, where `BaseOperation.postpone(_:)` and
/// the operation's own interceptor park), and a stage of the middleware chain may keep its own:
/// APILayer's authentication coordinator parks its API's operations in a lot of its own and
/// replays or fails only those. A parked operation stays the same object — same owner,
/// completion, delegate and progress — and is in one lot at most. Replays and failures go
/// first-parked first: when a refresh fails, the first call that needed the token ends first.
public final class ParkingLot: Sendable {
    private struct Parked {
        /// Each operation parked gets the next number: the order to replay or fail them in.
        var next: UInt64 = 0
        /// Each entry with its order and the parking it lists (`BaseOperation.parkingTicket`).
        var entries: [ObjectIdentifier: (order: UInt64, operation: BaseOperation, ticket: UInt64)] = [:]

        var ordered: [BaseOperation] {
            entries.values.sorted { $0.order < $1.order }.map(\.operation)
        }
    }

    private let parked = Locked(Parked())

    /// An empty lot.
    public init() {}

    /// How many operations are parked here.
    public var count: Int { parked.withLock { $0.entries.count } }

    /// Whether no operation is parked here.
    public var isEmpty: Bool { parked.withLock { $0.entries.isEmpty } }

    /// Lists `operation`, which parked itself here (outside its lock) by the parking `ticket`
    /// names.
    ///
    /// The listing comes a moment after the parking, on the thread that parked it, and that
    /// moment may be long on a busy machine: meanwhile a cancel may have ended the parking, or a
    /// replay taken the operation (listed by then) and sent it on, and it may have parked again
    /// and listed itself for that later parking. So a listing never replaces one of a later
    /// parking, and the entry of a parking that ended is taken out again only while it is still
    /// that parking's.
    ///
    /// - Returns: whether the parking still lasts, listed here: only then do the operation's
    ///   stages hear of it (`operationDidPark`).
    @discardableResult
    func add(_ operation: BaseOperation, ticket: UInt64) -> Bool {
        let id = ObjectIdentifier(operation)
        let listed = parked.withLock { parked -> Bool in
            if let entry = parked.entries[id], entry.ticket > ticket { return false }
            parked.entries[id] = (parked.next, operation, ticket)
            parked.next += 1
            return true
        }
        guard listed else { return false }
        if operation.parkingTicket == ticket { return true }
        parked.withLock { parked in
            if parked.entries[id]?.ticket == ticket { parked.entries[id] = nil }
        }
        return false
    }

    /// Forgets `operation`, which left the parked state (before it can park again).
    func remove(_ operation: BaseOperation) {
        parked.withLock { _ = $0.entries.removeValue(forKey: ObjectIdentifier(operation)) }
    }

    /// Whether `operation` is parked here now.
    package func contains(_ operation: BaseOperation) -> Bool {
        parked.withLock { $0.entries[ObjectIdentifier(operation)] != nil }
    }

    /// Takes `operation` out of the lot; true when it was there (exactly one caller wins).
    public func take(_ operation: BaseOperation) -> Bool {
        parked.withLock { $0.entries.removeValue(forKey: ObjectIdentifier(operation)) != nil }
    }

    /// Removes and returns the operation parked first of those `matching`, if any.
    public func takeFirst(where matching: (BaseOperation) -> Bool = { _ in true }) -> BaseOperation? {
        parked.withLock { parked in
            guard let first = parked.entries.filter({ matching($0.value.operation) }).min(by: { $0.value.order < $1.value.order }) else {
                return nil
            }
            parked.entries[first.key] = nil
            return first.value.operation
        }
    }

    /// Removes and returns every parked operation, first parked first.
    public func takeAll() -> [BaseOperation] {
        parked.withLock { parked in
            let all = parked.ordered
            parked.entries.removeAll()
            return all
        }
    }

    /// Every operation parked here, first parked first.
    public var operations: [BaseOperation] {
        parked.withLock { $0.ordered }
    }

    /// Replays every operation parked here, first parked first: each request is rebuilt
    /// through the modification it was postponed with, else `update` (to put a fresh token in,
    /// say), then through the operation's chain, and sent again. A `successor` waiting here is
    /// started, added to `queue` when one is given.
    ///
    /// - Returns: the operations replayed.
    @discardableResult
    public func replayAll(on queue: OperationQueue? = nil, update: (@Sendable (inout URLRequest) -> Void)? = nil) -> [BaseOperation] {
        let operations = takeAll()
        for operation in operations { operation.replay(on: queue, update: update) }
        return operations
    }

    /// Ends every operation parked here with `error` (`.failedFinished`), first parked first,
    /// on the calling thread: their completions run in that order, and every thread in
    /// `syncStart()` and every `run()` waiting on them returns.
    ///
    /// - Returns: the operations ended.
    @discardableResult
    public func failAll(with error: NetOpsError) -> [BaseOperation] {
        let operations = takeAll()
        for operation in operations { operation.failPostponed(with: error) }
        return operations
    }
}
