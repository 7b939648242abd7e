import NetOps

/// An asynchronous readers–writer lock for tests that share one process: any number of
/// *shared* holders at once, or one *exclusive* holder alone.
///
/// Why the test process needs one: `swift test` runs suites, tests and the cases of a
/// parameterised test side by side in one process, on a two-core machine. Every URLSession of a
/// Linux process serialises its work on one process-wide queue (FoundationNetworking 6.3.1), and
/// the cores are few: a test that pushes thousands of operations through them (the chaos runs,
/// the thousand-operation queue, the token storms) delays by seconds a test that measures a
/// half-second timeout, or whose server answers within a deadline. (Parked operations need no
/// gate: they belong to a session's or a coordinator's own lot, and each test makes its own.)
/// The gate keeps load and timing apart without serialising the whole suite:
/// - **exclusive**: a test that loads the process runs with no other gated test beside it;
/// - **shared**: a test that times something, or whose server-side deadlines matter, runs beside
///   ordinary tests and beside other shared holders, never beside an exclusive one.
///
/// Ungated tests run whenever the runner starts them. Tests take the gate through the
/// `.processGate(_:)` trait; `ProcessGate.tests` is the one gate of the test process.
///
/// Grants are first come, first served: a shared request that arrives while an exclusive one
/// waits queues behind it, so a stream of shared holders never starves an exclusive one (and the
/// other way round). A waiting task holds no thread, and a cancelled wait leaves the queue at once
/// (throwing `CancellationError`) and lets whoever it was blocking in.
public final class ProcessGate: Sendable {
    /// How a holder uses the gate.
    public enum Access: Sendable, Hashable, CustomStringConvertible {
        /// Beside other shared holders, never beside an exclusive one.
        case shared
        /// Alone: no other holder at all.
        case exclusive

        /// `shared` or `exclusive`.
        public var description: String {
            switch self {
            case .shared: "shared"
            case .exclusive: "exclusive"
            }
        }
    }

    /// What the gate looks like at one moment: for the gate's own tests and for diagnostics.
    public struct Snapshot: Sendable, Equatable {
        /// How many shared holders are inside.
        public var sharedHolders: Int
        /// Whether an exclusive holder is inside.
        public var exclusiveHeld: Bool
        /// The accesses waiting, first come first.
        public var waiting: [Access]

        /// A snapshot of the gate.
        public init(sharedHolders: Int, exclusiveHeld: Bool, waiting: [Access]) {
            self.sharedHolders = sharedHolders
            self.exclusiveHeld = exclusiveHeld
            self.waiting = waiting
        }
    }

    /// The gate of the test process, taken by the `.processGate(_:)` trait.
    public static let tests = ProcessGate()

    /// Thrown instead of deadlocking when a task that holds the gate shared asks for it exclusively.
    public struct UpgradeError: Error, CustomStringConvertible {
        /// What went wrong, in one line.
        public var description: String { "a task holding the process gate shared asked for it exclusively" }
    }

    private struct Waiter {
        let id: UInt64
        let access: Access
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var sharedHolders = 0
        var exclusiveHeld = false
        var queue: [Waiter] = []
        var nextID: UInt64 = 0
        /// Requests between taking an ID and joining the queue.
        var arriving: Set<UInt64> = []
        /// Arriving requests whose task was cancelled before they joined the queue.
        var cancelledWhileArriving: Set<UInt64> = []

        /// Lets in, in queue order, every waiter that may enter now; returns whom to resume.
        mutating func admit() -> [CheckedContinuation<Void, any Error>] {
            var admitted: [CheckedContinuation<Void, any Error>] = []
            while let first = queue.first {
                switch first.access {
                case .exclusive:
                    guard !exclusiveHeld, sharedHolders == 0 else { return admitted }
                    exclusiveHeld = true
                case .shared:
                    guard !exclusiveHeld else { return admitted }
                    sharedHolders += 1
                }
                admitted.append(queue.removeFirst().continuation)
            }
            return admitted
        }
    }

    private let state = Locked(State())

    /// The gates the current task holds, and how (inherited by its child tasks).
    @TaskLocal private static var held: [ObjectIdentifier: Access] = [:]

    /// A new gate, open.
    public init() {}

    /// The gate now.
    public var snapshot: Snapshot {
        state.withLock { Snapshot(sharedHolders: $0.sharedHolders, exclusiveHeld: $0.exclusiveHeld, waiting: $0.queue.map(\.access)) }
    }

    /// Runs `body` holding the gate with `access`, after every earlier request was served.
    ///
    /// A task that already holds the gate (or whose parent task does, for the length of `body`)
    /// runs `body` at once when it asks for the same or a weaker access.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it waits (`body` did not
    ///   run); `UpgradeError` when a shared holder asks for exclusive access; else what `body`
    ///   throws.
    public func withAccess<T>(
        _ access: Access,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async throws -> T {
        let key = ObjectIdentifier(self)
        switch (Self.held[key], access) {
        case (.exclusive, _), (.shared, .shared):
            return try await body()
        case (.shared, .exclusive):
            throw UpgradeError()
        case (nil, _):
            break
        }
        try await acquire(access)
        defer { release(access) }
        var held = Self.held
        held[key] = access
        return try await Self.$held.withValue(held) { try await body() }
    }

    private func acquire(_ access: Access) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            state.arriving.insert(state.nextID)
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> (cancelled: Bool, admitted: [CheckedContinuation<Void, any Error>]) in
                    state.arriving.remove(id)
                    if state.cancelledWhileArriving.remove(id) != nil { return (true, []) }
                    state.queue.append(Waiter(id: id, access: access, continuation: continuation))
                    return (false, state.admit())
                }
                if outcome.cancelled { continuation.resume(throwing: CancellationError()) }
                for waiter in outcome.admitted { waiter.resume() }
            }
        } onCancel: {
            cancel(id)
        }
    }

    /// Takes a cancelled request out of the queue (or marks it before it joins) and lets in
    /// whoever it was blocking.
    private func cancel(_ id: UInt64) {
        let (cancelled, admitted) = state.withLock { state -> (CheckedContinuation<Void, any Error>?, [CheckedContinuation<Void, any Error>]) in
            if state.arriving.contains(id) {
                state.cancelledWhileArriving.insert(id)
                return (nil, [])
            }
            guard let index = state.queue.firstIndex(where: { $0.id == id }) else {
                return (nil, [])  // already admitted: the holder releases as usual
            }
            let waiter = state.queue.remove(at: index)
            return (waiter.continuation, state.admit())
        }
        cancelled?.resume(throwing: CancellationError())
        for waiter in admitted { waiter.resume() }
    }

    private func release(_ access: Access) {
        let admitted = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            switch access {
            case .shared:
                precondition(state.sharedHolders > 0, "released a shared hold never granted")
                state.sharedHolders -= 1
            case .exclusive:
                precondition(state.exclusiveHeld, "released an exclusive hold never granted")
                state.exclusiveHeld = false
            }
            return state.admit()
        }
        for waiter in admitted { waiter.resume() }
    }
}
