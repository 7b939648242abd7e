import Foundation
import NetOps
import NetOpsNIO
import Testing

/// The engines every network suite runs on: a behaviour difference between them is a failing test.
public enum TestEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession
    case nio

    /// The engine's name in test reports: `urlsession` or `nio`.
    public var testDescription: String { rawValue }

    /// The session operations of this engine run in.
    public var session: NetworkSession {
        switch self {
        case .urlSession: NetworkSession.shared
        case .nio: Self.nioSession
        }
    }

    /// A session of this engine of the test's own, with `options`: its parked operations, run
    /// slots and stages are the test's alone (as each Hummingbird test makes an application).
    public func makeSession(options: NetworkSession.Options = NetworkSession.Options()) -> NetworkSession {
        switch self {
        case .urlSession: NetworkSession(options: options)
        case .nio: NetworkSession.nio(configuration: Self.nioConfiguration, options: options)
        }
    }

    /// The NIO sessions' configuration: sized for the largest concurrency the suites use, and a
    /// connection that cannot be made fails at once (`retriesConnectionEstablishment` false), as
    /// on the URLSession engine, so both engines meet the same failures in the same time.
    ///
    /// AsyncHTTPClient fails a request that waited for a pooled connection longer than the
    /// connect timeout ("Get connection from pool timeout"). In the first seconds of a parallel
    /// run on two cores, a hundred tests starting at once, connections were accepted more than
    /// 10 s late; 30 s keeps that from failing tests that are about something else.
    public static var nioConfiguration: NIOEngineConfiguration {
        var configuration = NIOEngineConfiguration(concurrency: 64)
        configuration.retriesConnectionEstablishment = false
        configuration.connectTimeout = 30
        return configuration
    }

    /// One NIO session for the whole test process.
    private static let nioSession = NetworkSession.nio(configuration: nioConfiguration)
}

extension BaseOperation {
    /// Runs this operation on `engine`'s session; returns the operation for chaining.
    @discardableResult
    public func on(_ engine: TestEngine) -> Self {
        privateSession = engine.session
        return self
    }

    /// Runs this operation in `session`; returns the operation for chaining.
    @discardableResult
    public func on(_ session: NetworkSession) -> Self {
        privateSession = session
        return self
    }
}

/// Runs `body` with a NIO session of the test's own made from `configuration` (by default
/// `TestEngine.nioConfiguration`), and shuts the session down afterwards, whatever `body` does.
public func withNIOSession(
    _ configuration: NIOEngineConfiguration = TestEngine.nioConfiguration, _ body: (NetworkSession) async throws -> Void
) async throws {
    let session = NetworkSession.nio(configuration: configuration)
    do {
        try await body(session)
    } catch {
        try? await session.shutdownNIOEngine()
        throw error
    }
    try await session.shutdownNIOEngine()
}
