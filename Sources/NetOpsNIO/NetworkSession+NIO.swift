import NetOps

extension NetworkSession {
    /// A session whose operations run on SwiftNIO through AsyncHTTPClient instead of URLSession.
    ///
    /// Use it for one operation (`operation.privateSession = session`) or for all of them
    /// (`BaseOperation.defaultSession = session`, or `APIManager.defaultSession`). Operations
    /// behave the same on both engines; this one has no process-wide serial queue, so it scales
    /// with concurrency.
    ///
    /// Lifetime: the session owns an `HTTPClient` (its event loops are NIO's shared singleton
    /// group, so no threads are made per session). Call ``shutdownNIOEngine()`` once no operation
    /// uses the session any more; a session dropped without it shuts its client down when it is
    /// released.
    ///
    /// - Parameter configuration: pool size, timeouts, redirects and TLS settings.
    /// - Returns: a session to assign to operations.
    public static func nio(configuration: NIOEngineConfiguration = NIOEngineConfiguration()) -> NetworkSession {
        NetworkSession(engine: NIOEngine(configuration: configuration))
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
