import NetOps

extension APIManager {
    /// A group operation whose body runs with the default API of now.
    ///
    /// A group's body runs later, when the group starts — on a queue's thread, in a task of its
    /// own — where a default API bound by `withDefaultAPI` does not reach. This group captures
    /// `defaultAPI` when it is made and binds it around its body, so the calls inside go to the
    /// same API as calls made beside it. (Without `withDefaultAPI` the two are the same.)
    ///
    /// ```swift
    /// let screen = APIManager.group { context in
    ///     async let user = APIManager.users([id])
    ///     async let wall = APIManager.wall(of: id)
    ///     return try await (user, wall)
    /// }
    /// ```
    /// - Parameters:
    ///   - policy: What a failing sub-operation does (`GroupFailurePolicy`).
    ///   - body: The work; its return value is the group's `result`.
    public static func group<Result: Sendable>(
        policy: GroupFailurePolicy = .failFast, _ body: @escaping @Sendable (GroupContext) async throws -> Result
    ) -> GroupOperation<Result> {
        let api = defaultAPI
        return GroupOperation(policy: policy) { context in
            try await withDefaultAPI(api) { try await body(context) }
        }
    }
}
