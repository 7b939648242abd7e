import NetOps

extension NetworkSession {
    /// A session whose operations run on SwiftNIO through AsyncHTTPClient instead of URLSession.
    ///
    /// Use it for one operation (`operation.privateSession = session`) or for an API (its
    /// scope's `session`). A service whose operations all run here never makes a URLSession
    /// (`NetworkSession.shared` is made only for an operation that has no session). Operations
    /// behave the same on both engines; this one has no process-wide serial queue, so it scales
    /// with concurrency.
    ///
    /// Lifetime: the session owns an `HTTPClient` (its event loops are NIO's shared singleton
    /// group, so no threads are made per session). Call ``shutdownNIOEngine()`` once no operation
    /// uses the session any more; a session dropped without it shuts its client down when it is
    /// released.
    ///
    /// - Parameters:
    ///   - configuration: pool size, timeouts, redirects and TLS settings.
    ///   - options: what the session's operations run with (retry policy, middleware, timeouts).
    /// - Returns: a session to assign to operations.
    public static func nio(
        configuration: NIOEngineConfiguration = NIOEngineConfiguration(), options: NetworkSession.Options = NetworkSession.Options()
    ) -> NetworkSession {
        NetworkSession(engine: NIOEngine(configuration: configuration), options: options)
    }

    /// Whether this session runs on the SwiftNIO engine.
    public var isNIO: Bool {
        engine is NIOEngine
    }

    /// Closes the session's connections and shuts its `HTTPClient` down.
    ///
    /// Transfers still running fail (as `connectionLost`). Does nothing for a URLSession-backed
    /// session or when called again.
    /// - Throws: AsyncHTTPClient's error if the client did not shut down cleanly.
    public func shutdownNIOEngine() async throws {
        guard let engine = engine as? NIOEngine else { return }
        try await engine.shutdown()
    }
}
