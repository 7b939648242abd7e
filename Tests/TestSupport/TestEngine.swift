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
        case .nio: NetworkSession.nio(configuration: NIOEngineConfiguration(concurrency: 64), options: options)
        }
    }

    /// One NIO session for the whole test process, sized for the largest concurrency the suites use.
    private static let nioSession = NetworkSession.nio(configuration: NIOEngineConfiguration(concurrency: 64))
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
