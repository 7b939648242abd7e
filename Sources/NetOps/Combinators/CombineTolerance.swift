/// Runs operations of different types side by side, lets every one of them end, and returns how
/// each ended as a tuple of `Result`s, in the order given.
///
/// ```swift
/// let (users, photos, avatar) = await combineTolerance(
///     SampleAPI.users([1]),          // Result<[User], APIError>
///     SampleAPI.photos(of: 1),       // Result<Page<Photo>, APIError>
///     DTO.get(avatarURL))            // Result<DataTaskOperation, any Error>
/// let shownPhotos = (try? photos.get())?.items ?? []
/// ```
///
/// The typed counterpart of `GroupOperation.combineTolerance(_:)`: a failure does not stop or
/// cancel the others, and each `Result` carries the operation's own `Failure` type. It never
/// throws, even when every operation failed: the caller reads the results. Cancelling the
/// calling `Task` cancels the operations still running, which then end with their cancellation
/// error. Called in a group's body, the operations belong to that group. For an `Operation` to
/// queue, wrap it: `GO { _ in await combineTolerance(a, b) }`.
///
/// Each operation must be unstarted and in no queue: `combineTolerance` starts it.
///
/// - Returns: each operation's output or error, in the order the operations were given.
public func combineTolerance<each Operation: TypedOperation>(
    _ operation: repeat each Operation
) async -> (repeat Result<(each Operation).Output, (each Operation).Failure>) {
    let slots = (repeat ResultSlot.for(each operation))
    await withTaskGroup(of: Void.self) { tasks in
        for (operation, slot) in repeat (each operation, each slots) {
            tasks.addTask { slot.fill(await settle(operation)) }
        }
    }
    return (repeat (each slots).result)
}

/// Runs `operation` and returns how it ended, its error typed as its `Failure`.
private func settle<Operation: TypedOperation>(_ operation: Operation) async -> Result<Operation.Output, Operation.Failure> {
    do {
        return .success(try await operation.run())
    } catch {
        return .failure(error)
    }
}

/// Where one task of `combineTolerance` leaves how its operation ended.
private final class ResultSlot<Output: Sendable, Failure: Error>: Sendable {
    private let stored = Locked<Result<Output, Failure>?>(nil)

    /// An empty slot for `operation`'s result.
    static func `for`<Operation: TypedOperation>(_ operation: Operation) -> ResultSlot<Operation.Output, Operation.Failure>
    where Output == Operation.Output, Failure == Operation.Failure {
        ResultSlot()
    }

    func fill(_ result: Result<Output, Failure>) {
        stored.withLock { $0 = result }
    }

    /// The result; only read once every task ended, so it is there.
    var result: Result<Output, Failure> {
        guard let result = stored.withLock({ $0 }) else { preconditionFailure("combineTolerance read a result before its operation ended") }
        return result
    }
}
