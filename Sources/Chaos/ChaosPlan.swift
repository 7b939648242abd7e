/// The kinds of operation a chaos run makes.
enum ChaosKind: String, CaseIterable, Sendable {
    /// A data task against a fault route.
    case data
    /// A download into the run's download folder.
    case download
    /// An upload of bytes from memory or a file.
    case upload
    /// A data task guarded by the run's `AuthenticationCoordinator`.
    case authenticated
    /// A data task through the run's `CircuitBreaker` against an origin that fails in bursts:
    /// its circuit opens, probes, closes and opens again while the others run.
    case breaker
    /// A call through the run's API scope (`ChaosScope`): HTTP cache, coalescing, a rate
    /// limiter and a circuit breaker in one chain, against cache, counted and fault routes.
    case scoped
    /// A group running two or three operations one after another.
    case group
    /// A group running operations in parallel and a nested group.
    case nestedGroup
    /// A group with a synchronous body (`syncRun` on its own thread).
    case syncGroup
}

/// How a planned operation is started.
enum ChaosLane: Sendable, Equatable {
    /// Added to one of the run's `OperationQueue`s.
    case queue(Int)
    /// `try await operation.run()` from a task.
    case await
    /// `operation.syncStart()` from a thread.
    case sync
}

/// One top-level operation of the plan; `detail` seeds the choice of route and sizes.
struct PlannedOperation: Sendable {
    let index: Int
    let kind: ChaosKind
    let lane: ChaosLane
    let owner: Int
    let detail: UInt64
}

/// The whole run decided up front from the seed.
struct ChaosPlan: Sendable {
    static let queueCount = 2
    static let ownerCount = 16

    let operations: [PlannedOperation]

    init(count: Int, seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let kinds: [(ChaosKind, UInt64)] = [
            (.data, 24), (.download, 14), (.upload, 10), (.authenticated, 20), (.breaker, 6), (.scoped, 12),
            (.group, 6), (.nestedGroup, 4), (.syncGroup, 4),
        ]
        let total = kinds.reduce(0) { $0 + $1.1 }
        operations = (0..<count).map { index in
            var pick = generator.next() % total
            var kind = ChaosKind.data
            for (candidate, weight) in kinds {
                if pick < weight {
                    kind = candidate
                    break
                }
                pick -= weight
            }
            let laneRoll = generator.next() % 10
            let lane: ChaosLane =
                laneRoll < 5
                ? .queue(Int(generator.next() % UInt64(Self.queueCount)))
                : laneRoll < 8 ? .await : .sync
            return PlannedOperation(
                index: index, kind: kind, lane: lane,
                owner: Int(generator.next() % UInt64(Self.ownerCount)), detail: generator.next())
        }
    }
}
