extension TypedOperation {
    /// Runs the operation and returns its output transformed by `transform`.
    ///
    /// ```swift
    /// let user = try await DTO.get(userURL).map { try $0.decode(User.self) }
    /// ```
    ///
    /// - Throws: the operation's error, or what `transform` throws.
    public func map<Value>(_ transform: (Output) async throws -> Value) async throws -> Value {
        try await transform(run())
    }

    /// Runs the operation and returns its output; an error it fails with is replaced by what
    /// `transform` makes of it.
    ///
    /// ```swift
    /// let issues = try await operation.mapError { ServiceError.tracker($0) }
    /// ```
    ///
    /// - Throws: `transform`'s error when the operation failed or was cancelled.
    public func mapError<NewFailure: Error>(_ transform: (Failure) -> NewFailure) async throws(NewFailure) -> Output {
        do {
            return try await run()
        } catch {
            throw transform(error)
        }
    }

    /// Runs the operation and returns its output or, when it failed or was cancelled, what
    /// `recover` returns for the error (a cached value, a default).
    ///
    /// ```swift
    /// let issues = await TrackerAPI.issues(owner: owner, repo: repo).catch { _ in cachedIssues }
    /// ```
    ///
    /// - Throws: what `recover` throws.
    public func `catch`<NewFailure: Error>(_ recover: (Failure) async throws(NewFailure) -> Output) async throws(NewFailure) -> Output {
        do {
            return try await run()
        } catch {
            return try await recover(error)
        }
    }
}
