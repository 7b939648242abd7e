/// What DemoServer has seen since it started, for tests and the demo to check against.
public struct DemoServerStatistics: Sendable, Equatable {
    /// Requests answered, all routes together.
    public var requests = 0
    /// Requests to the payload routes that carried a `Range` header.
    public var rangeRequests = 0
    /// Ranged requests answered with 206 Partial Content.
    public var partialResponses = 0

    /// Statistics with every counter at zero.
    public init() {}
}
