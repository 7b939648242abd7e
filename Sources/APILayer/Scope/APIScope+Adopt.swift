import NetOps

extension APIScope {
    /// Makes `operation`, built outside the recipe, one of this API's operations: it runs in the
    /// API's session (engine), with the API's retry policy, redaction, response size limit, total
    /// timeout, cookies (when the API uses them), connectivity monitor and stages, and carries the API's
    /// token on the API's origins only, so a 401 from any number of them at once costs one
    /// refresh and each is replayed with the fresh token.
    ///
    /// This is what lets a request the recipe does not describe (one from a generated OpenAPI
    /// client, say) share the API's authentication:
    ///
    /// ```swift
    /// let operation = DataTaskOperation(request: URLRequest(url: url))
    /// APIScope.tracker.adopt(operation)
    /// try await operation.run()
    /// ```
    /// - Parameters:
    ///   - operation: An operation not started yet.
    ///   - tokenPlacement: Where the token goes; nil sends the request without one.
    public func adopt(_ operation: BaseOperation, tokenPlacement: TokenPlacement? = .authorizationHeader) {
        let snapshot = self.snapshot
        operation.redaction = snapshot.configuration.redaction.adding(parameters: Set([tokenPlacement?.parameterName].compactMap { $0 }))
        snapshot.equip(operation, placement: tokenPlacement)
    }
}

extension APIScope.Snapshot {
    /// Gives `operation` what every call of the API shares: the count of its calls in flight
    /// (when a service owns the API), its session, retry policy, response
    /// limit (when the body stays in memory), total timeout, cookies, connectivity monitor and
    /// callback queue, and its stages — circuit breaker, rate limiter, the scope's own, and the
    /// authentication when the token has a `placement`.
    func equip(_ operation: BaseOperation, placement: TokenPlacement?, keepsBodyInMemory: Bool = true) {
        if let admission { operation.use(admission) }
        if let session = configuration.session { operation.privateSession = session }
        if let retryPolicy = configuration.retryPolicy { operation.retryPolicy = retryPolicy }
        operation.maximumResponseBodyBytes = keepsBodyInMemory ? configuration.maximumResponseBodyBytes : nil
        operation.totalTimeout = configuration.totalTimeout
        if let tls = configuration.tls { operation.tlsSettings = tls }
        if !configuration.allowsHTTP2 { operation.allowsHTTP2 = false }
        if let proxy = configuration.proxy { operation.proxy = proxy }
        operation.cookieJar = cookieJar
        if let monitor = configuration.connectivityMonitor { operation.connectivityMonitor = monitor }
        if let queue = configuration.callbackQueue { operation.callbackQueue = queue }
        if let circuitBreaker { operation.use(circuitBreaker) }
        if let rateLimiter { operation.use(rateLimiter) }
        // The cache outside the coalescer: a fresh entry answers without joining anything; a
        // miss or a revalidation may share a transfer.
        if let cache = configuration.cache { operation.use(cache) }
        if let coalescer { operation.use(coalescer) }
        operation.middleware += configuration.middleware
        if let authentication, let placement {
            operation.use(
                ScopedAuthentication(
                    coordinator: authentication, placement: placement, origins: configuration.origins,
                    allowsInsecureTransport: configuration.allowsInsecureTransport))
        }
    }
}
