import Foundation

extension NetworkSession {
    /// What a session's operations run with unless an operation sets its own: a value, given
    /// when the session is made and never changed after.
    public struct Options: Sendable {
        /// The retry policy of operations that have none of their own. Default: `.none`.
        public var retryPolicy: RetryPolicy
        /// The stages every request of the session passes through, outermost first, before the
        /// stages of an API scope and of the operation (see `NetworkMiddleware`).
        public var middleware: [any NetworkMiddleware]
        /// Seconds without a byte moving after which an operation fails; nil: each request's
        /// `timeoutInterval` (60 s unless the request says otherwise).
        public var idleTimeout: TimeInterval?
        /// Seconds an operation may work in all before it fails with `.deadlineExceeded`; nil
        /// (the default): no such limit.
        public var totalTimeout: TimeInterval?
        /// The most bytes of a response body an operation keeps in memory; nil: no limit.
        /// Default: `BaseOperation.defaultMaximumResponseBodyBytes` (64 MiB).
        public var maximumResponseBodyBytes: Int64?
        /// What never appears in the session's logs, descriptions and error texts, and what is
        /// stripped on a redirect to another origin. Default: `Redaction.standard`.
        public var redaction: Redaction

        /// Options with the given values; every default is the one documented on its property.
        public init(
            retryPolicy: RetryPolicy = .none, middleware: [any NetworkMiddleware] = [], idleTimeout: TimeInterval? = nil,
            totalTimeout: TimeInterval? = nil, maximumResponseBodyBytes: Int64? = BaseOperation.defaultMaximumResponseBodyBytes,
            redaction: Redaction = .standard
        ) {
            self.retryPolicy = retryPolicy
            self.middleware = middleware
            self.idleTimeout = idleTimeout.map { max(0.001, $0) }
            self.totalTimeout = totalTimeout.map { max(0.001, $0) }
            self.maximumResponseBodyBytes = maximumResponseBodyBytes.map { max(0, $0) }
            self.redaction = redaction
        }
    }
}
