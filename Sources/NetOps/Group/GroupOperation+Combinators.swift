import Foundation

/// What a tolerant combination of operations produced: those that succeeded, and why the others
/// did not.
public struct PartialResults<Operation: BaseOperation>: Sendable {
    /// The operations that ended `.successFinished`, in the order they were given.
    public let succeeded: [Operation]
    /// The operations that failed or were cancelled, in the order they were given.
    public let failures: [GroupFailure]

    /// A value with these succeeded operations and failures.
    public init(succeeded: [Operation], failures: [GroupFailure]) {
        self.succeeded = succeeded
        self.failures = failures
    }
}

extension GroupOperation {
    /// A group that runs `operations` side by side and succeeds when all of them do; its result
    /// is the operations, in the order given.
    ///
    /// The first operation that fails (or is cancelled) fails the group with its error, and the
    /// others still running are cancelled.
    ///
    /// ```swift
    /// let page = GroupOperation.combine([DTO.get(bannerURL), DTO.get(productsURL), DTO.get(actionsURL)])
    /// let bodies = try await page.run().map(\.receivedData)   // banner, products, actions
    /// ```
    ///
    /// Each operation must be unstarted and in no queue: the group starts it.
    public static func combine<Operation: BaseOperation>(_ operations: [Operation]) -> GroupOperation<Result>
    where Result == [Operation] {
        GroupOperation { _ in
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for operation in operations {
                    tasks.addTask { try await operation.run() }
                }
                try await tasks.waitForAll()
            }
            return operations
        }
    }

    /// A group that runs `operations` side by side and keeps what succeeded: its result lists
    /// the operations that succeeded and the failures of the others.
    ///
    /// Failures do not stop the others. The group fails (with `GroupError.allFailed`) only when
    /// every operation failed; an empty list succeeds with an empty result.
    ///
    /// Each operation must be unstarted and in no queue: the group starts it.
    public static func combineTolerance<Operation: BaseOperation>(_ operations: [Operation]) -> GroupOperation<Result>
    where Result == PartialResults<Operation> {
        GroupOperation(policy: .collectPartialResults) { _ in
            await withTaskGroup(of: Void.self) { tasks in
                for operation in operations {
                    tasks.addTask { _ = try? await operation.run() }
                }
            }
            var succeeded: [Operation] = []
            var failures: [GroupFailure] = []
            for operation in operations {
                if operation.state == .successFinished {
                    succeeded.append(operation)
                } else {
                    failures.append(GroupFailure(operation: operation, error: operation.error ?? GroupError.cancelled))
                }
            }
            if succeeded.isEmpty, !failures.isEmpty { throw GroupError.allFailed(failures) }
            return PartialResults(succeeded: succeeded, failures: failures)
        }
    }

    /// A group that runs `first`, then the operation `next` makes from it, and keeps both: its
    /// result is the pair.
    ///
    /// ```swift
    /// let account = GroupOperation.chain(DTO.get(accountURL)) { account in
    ///     DTO.get(cardsURL, parameters: ["type": try account.decode(Account.self).type])
    /// }
    /// let (summary, cards) = try await account.run()
    /// ```
    ///
    /// When `first` fails, `next` is not called and the group fails with `first`'s error; when
    /// `next` throws, the group fails with that error.
    ///
    /// - Parameters:
    ///   - first: an unstarted operation in no queue.
    ///   - next: makes the second operation (unstarted) from the succeeded first one.
    public static func chain<First: BaseOperation, Second: BaseOperation>(
        _ first: First,
        then next: @escaping @Sendable (First) throws -> Second
    ) -> GroupOperation<Result> where Result == (First, Second) {
        GroupOperation { context in
            try await context.run(first)
            let second = try next(first)
            try await context.run(second)
            return (first, second)
        }
    }
}
