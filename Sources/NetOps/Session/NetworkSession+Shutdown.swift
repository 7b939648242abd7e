extension NetworkSession {
    /// Closes the session's connections, on either engine: transfers still running fail (as
    /// `connectionLost`, or `cancelled` on the URLSession engine), and operations started later
    /// fail at once with `cannotConnect`. Calling it again does nothing.
    ///
    /// Call it once nothing uses the session any more; a service hands its sessions to
    /// `APIService`, which calls it after its calls drained. Never call it on
    /// `NetworkSession.shared`, which every operation without a session of its own uses.
    /// - Throws: the engine's error if it did not close cleanly.
    public func shutdown() async throws {
        try await engine.shutdown()
    }
}
