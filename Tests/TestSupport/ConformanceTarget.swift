import Foundation
import NetOps
import Testing

/// Where the conformance cases run: each engine against the cleartext DemoServer (HTTP/1.1), and
/// the NIO engine over TLS with HTTP/2 (``HTTP2TestServer``).
public enum ConformanceTarget: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSessionHTTP1
    case nioHTTP1
    case nioHTTP2

    /// The targets this machine can run: every one, except HTTP/2 where openssl (which makes its
    /// server's certificates) is missing and not required; that skip is noted for the run's
    /// last line (``MissingServers``). The cases of a parameterised test run over these.
    public static var runnable: [ConformanceTarget] {
        MissingServers.mayRun("HTTP/2 conformance cases", needing: [.openssl]) ? allCases : allCases.filter { $0 != .nioHTTP2 }
    }

    /// The target's name in test reports.
    public var testDescription: String { rawValue }

    /// The engine the target runs on.
    public var engine: TestEngine { self == .urlSessionHTTP1 ? .urlSession : .nio }

    /// The absolute URL of `path` (with query) on the target's server.
    public func url(_ path: String) async throws -> URL {
        self == .nioHTTP2 ? try await HTTP2TestServer.url(path) : try await TestServer.url(path)
    }

    /// The session the target's operations run in; for `nioHTTP2`, once a URL of the target
    /// was made (``url(_:)`` starts its server).
    public var session: NetworkSession {
        self == .nioHTTP2 ? HTTP2TestServer.startedSession : engine.session
    }

    /// The response's protocol as the target must see it.
    public var expectedHTTPVersion: String { self == .nioHTTP2 ? "HTTP/2.0" : "HTTP/1.1" }
}

extension BaseOperation {
    /// Runs this operation in `target`'s session (after a URL of the target was made); returns
    /// the operation for chaining.
    @discardableResult
    public func on(_ target: ConformanceTarget) -> Self {
        privateSession = target.session
        return self
    }
}
