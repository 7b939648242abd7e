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
        case .urlSession: BaseOperation.defaultSession
        case .nio: Self.nioSession
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
}
