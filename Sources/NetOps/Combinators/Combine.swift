/// Runs operations of different types side by side and returns their outputs as a tuple, in the
/// order given.
///
/// ```swift
/// let (users, photos, avatar) = try await combine(
///     SampleAPI.users([1]),          // APIOperation<[User]>
///     SampleAPI.photos(of: 1),       // APIOperation<Page<Photo>>
///     DTO.get(avatarURL))            // DataTaskOperation
/// ```
///
/// The first operation that fails (or is cancelled) makes `combine` throw its error, and the
/// others still running are cancelled. Cancelling the calling `Task` cancels them all. Called in
/// a group's body, the operations belong to that group. For an `Operation` to queue, wrap it:
/// `GO { _ in try await combine(a, b) }`.
///
/// Each operation must be unstarted and in no queue: `combine` starts it.
///
/// - Throws: the error of the first operation that did not succeed.
public func combine<each Operation: TypedOperation>(
    _ operation: repeat each Operation
) async throws -> (repeat (each Operation).Output) {
    let slots = (repeat OutputSlot.for(each operation))
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        for (operation, slot) in repeat (each operation, each slots) {
            tasks.addTask { slot.fill(try await operation.run()) }
        }
        // `next()` throws at the first failure (`waitForAll()` would wait for every task first);
        // leaving the group then cancels the other tasks, and each cancelled `run()` cancels
        // its operation.
        while try await tasks.next() != nil {}
    }
    return (repeat (each slots).value)
}

/// Where one task of `combine` leaves its operation's output.
private final class OutputSlot<Value: Sendable>: Sendable {
    private let stored = Locked<Value?>(nil)

    /// An empty slot for `operation`'s output.
    static func `for`<Operation: TypedOperation>(_ operation: Operation) -> OutputSlot<Operation.Output>
    where Value == Operation.Output {
        OutputSlot()
    }

    func fill(_ value: Value) {
        stored.withLock { $0 = value }
    }

    /// The output; only read once every task succeeded, so it is there.
    var value: Value {
        guard let value = stored.withLock({ $0 }) else { preconditionFailure("combine read an output before its operation succeeded") }
        return value
    }
}
