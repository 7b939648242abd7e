import NetOps

/// The transfer engine a chaos run drives.
public enum ChaosEngine: String, CaseIterable, Sendable {
    /// FoundationNetworking's URLSession (libcurl).
    case urlsession
    /// SwiftNIO (`NetOpsNIO`), once that engine is merged into this branch.
    case nio

    /// The one place that turns an engine choice into the `NetworkSession` the run uses.
    ///
    /// - Throws: `ChaosEngineError.notBuilt` for an engine this build does not contain.
    public func makeSession() throws -> NetworkSession {
        switch self {
        case .urlsession:
            let configuration = NetworkSession.defaultConfiguration()
            configuration.httpMaximumConnectionsPerHost = 32
            return NetworkSession(configuration: configuration)
        case .nio:
            throw ChaosEngineError.notBuilt(self)
        }
    }
}

/// Why a chaos run could not get its engine.
public enum ChaosEngineError: Error, CustomStringConvertible, Equatable {
    /// The engine is not built into this branch.
    case notBuilt(ChaosEngine)

    /// One readable line.
    public var description: String {
        switch self {
        case let .notBuilt(engine):
            return "the \(engine.rawValue) engine is not built into this branch (only urlsession is)"
        }
    }
}
