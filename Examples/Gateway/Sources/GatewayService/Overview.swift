import APILayer
import Foundation
import NetOps
import SampleAPI
import Synchronization

/// What `GET /overview/{user}` answers: a user from SampleAPI and the newest open issues of a
/// repository from TrackerAPI, fetched side by side.
public struct Overview: Codable, Sendable {
    /// The user, from SampleAPI's `users.get`.
    public var user: OverviewUser
    /// The newest open issues, from TrackerAPI's `issues/list-for-repo`.
    public var issues: [OverviewIssue]

    /// The fields of a SampleAPI user the overview keeps.
    public struct OverviewUser: Codable, Sendable {
        /// The user's id.
        public var id: Int
        /// "First Last".
        public var name: String
        /// Whether the user is online.
        public var online: Bool
    }

    /// The fields of a TrackerAPI issue the overview keeps.
    public struct OverviewIssue: Codable, Sendable {
        /// The issue's number in its repository.
        public var number: Int
        /// Its title.
        public var title: String
        /// Its labels' names.
        public var labels: [String]
    }
}

extension GatewayAPIs {
    /// Calls SampleAPI and TrackerAPI at once for `userID` and combines their answers. Each
    /// call is counted in the ledger once when it starts and once when it ends.
    ///
    /// - Throws: `OverviewError` naming the first call that failed.
    public func overview(of userID: Int) async throws(OverviewError) -> Overview {
        let (owner, repo) = repository
        let count = issueCount
        let result: Result<Overview, OverviewError> = await bound {
            async let users = counted(sample) { () async throws(APIError) -> [User] in
                try await APIManager.call(
                    SampleAPI.usersGet, properties: ["user_ids": "\(userID)"], as: [User].self, at: "response")
            }
            async let issues = counted(tracker) { () async throws(APIError) -> [Issue] in
                try await APIManager.call(
                    TrackerAPI.listIssues, properties: ["owner": owner, "repo": repo, "per_page": count], as: [Issue].self)
            }
            let (userResult, issueResult) = await (users, issues)
            switch (userResult, issueResult) {
            case let (.success(users), .success(issues)):
                guard let user = users.first else { return .failure(OverviewError(api: "sample", reason: .notFound)) }
                return .success(
                    Overview(
                        user: .init(id: user.id, name: user.fullName, online: user.isOnline),
                        issues: issues.map { .init(number: $0.number, title: $0.title, labels: $0.labels.map(\.name)) }))
            case let (.failure(error), _), let (_, .failure(error)):
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Runs one call of `scope`'s API, counting it in the ledger, and says how it ended.
    private func counted<Model: Sendable>(
        _ scope: APIScope, _ call: () async throws(APIError) -> Model
    ) async -> Result<Model, OverviewError> {
        ledger.started()
        do {
            let model = try await call()
            ledger.ended(.succeeded)
            return .success(model)
        } catch {
            let reason = OverviewError.Reason(error, of: scope)
            ledger.ended(reason.outcome)
            return .failure(OverviewError(api: scope.name, reason: reason))
        }
    }
}

/// Why an overview could not be made: which API's call failed, and how.
public struct OverviewError: Error, Sendable, CustomStringConvertible {
    /// The API whose call failed (`sample` or `tracker`).
    public var api: String
    /// How it failed.
    public var reason: Reason

    /// How a call failed.
    public enum Reason: Sendable {
        /// The API's service is shutting down and took no new call (`ServiceStoppingError`).
        case refused
        /// The call was cancelled (the request went away, or the shutdown's drain ran out).
        case cancelled
        /// The user does not exist.
        case notFound
        /// Any other failure: transport, status, validation, mapping.
        case failed(APIError)

        /// What `error` of a call of `scope`'s API means. A call its `APIService` refused fails
        /// at construction (made after the shutdown began) or is rejected before its request
        /// goes (made before, started after), both while the scope is stopping.
        init(_ error: APIError, of scope: APIScope) {
            switch error.stage {
            case .construction where scope.isStopping:
                self = .refused
            case let .transport(failure):
                switch failure.kind {
                case .cancelled: self = .cancelled
                case .rejected where scope.isStopping: self = .refused
                default: self = .failed(error)
                }
            default:
                self = .failed(error)
            }
        }

        /// The ledger's name for it.
        var outcome: CallLedger.Outcome {
            switch self {
            case .refused: return .refused
            case .cancelled: return .cancelled
            case .notFound, .failed: return .failed
            }
        }
    }

    /// One line, with no credential (APIError's descriptions are redacted).
    public var description: String {
        switch reason {
        case .refused: return "\(api): not called, the gateway is shutting down"
        case .cancelled: return "\(api): the call was cancelled"
        case .notFound: return "\(api): no such user"
        case let .failed(error): return "\(api): \(error)"
        }
    }
}

/// How the gateway's API calls ended, each counted once when it starts and once when it ends.
public final class CallLedger: Sendable {
    /// How a call ended.
    public enum Outcome: Sendable {
        /// The model arrived.
        case succeeded
        /// It failed: transport, status, validation, mapping.
        case failed
        /// It was cancelled.
        case cancelled
        /// It was refused: its API's service was shutting down.
        case refused
    }

    /// The counts.
    public struct Counts: Sendable, Equatable, Codable {
        /// Calls started.
        public var started = 0
        /// Calls whose model arrived.
        public var succeeded = 0
        /// Calls that failed.
        public var failed = 0
        /// Calls cancelled.
        public var cancelled = 0
        /// Calls refused by the shutting-down service.
        public var refused = 0

        /// Calls that ended, however.
        public var ended: Int { succeeded + failed + cancelled + refused }
        /// Calls started that never ended: 0 unless a call was lost.
        public var lost: Int { started - ended }
    }

    private let counts = Mutex(Counts())

    /// An empty ledger.
    public init() {}

    /// Counts a call that starts.
    public func started() {
        counts.withLock { $0.started += 1 }
    }

    /// Counts a call that ended as `outcome`.
    public func ended(_ outcome: Outcome) {
        counts.withLock { counts in
            switch outcome {
            case .succeeded: counts.succeeded += 1
            case .failed: counts.failed += 1
            case .cancelled: counts.cancelled += 1
            case .refused: counts.refused += 1
            }
        }
    }

    /// The counts now.
    public var snapshot: Counts { counts.withLock { $0 } }
}
