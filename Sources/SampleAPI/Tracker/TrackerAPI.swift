import APILayer
import NetOps
import Validator

/// The methods of TrackerService, a small REST issue tracker that DemoServer serves: the
/// recipe applied to a REST API, beside SampleAPI, in a scope of its own.
///
/// Raw values are the methods' names and their templates' names, with folders
/// (`issues/list-for-repo` is `Templates/TrackerAPI/issues/list-for-repo.json`); paths carry
/// placeholders filled from the call (`repos/{owner}/{repo}/issues/{number}`). Its token is a
/// bearer token of its own API and never reaches SampleService, nor SampleService's its server.
///
/// Use the typed operations (`TrackerAPI.issues(owner:repo:)`, …) rather than the cases.
public enum TrackerAPI: String, APIMethod, CaseIterable {
    /// The user the token belongs to.
    case currentUser = "user/get"
    /// A page of a repository's issues, newest first.
    case listIssues = "issues/list-for-repo"
    /// One issue by number.
    case getIssue = "issues/get"
    /// Opens an issue (201 Created).
    case createIssue = "issues/create"
    /// Changes an issue's title or state.
    case updateIssue = "issues/update"
    /// Deletes an issue (204 No Content).
    case deleteIssue = "issues/delete"

    /// Where each method lives below the API's base URL.
    public var path: String {
        switch self {
        case .currentUser: return "user"
        case .listIssues, .createIssue: return "repos/{owner}/{repo}/issues"
        case .getIssue, .updateIssue, .deleteIssue: return "repos/{owner}/{repo}/issues/{number}"
        }
    }

    /// REST verbs.
    public var httpMethod: HTTPMethod {
        switch self {
        case .currentUser, .listIssues, .getIssue: return .get
        case .createIssue: return .post
        case .updateIssue: return .patch
        case .deleteIssue: return .delete
        }
    }

    /// Reads send their parameters in the query, changes as JSON.
    public var encoding: RequestEncoding {
        switch self {
        case .currentUser, .listIssues, .getIssue, .deleteIssue: return .query
        case .createIssue, .updateIssue: return .json
        }
    }

    /// Lists ask for pages of 30 open issues unless the call says otherwise.
    public var defaultParameters: Parameters {
        switch self {
        case .listIssues: return ["state": "open", "per_page": 30]
        case .currentUser, .getIssue, .createIssue, .updateIssue, .deleteIssue: return [:]
        }
    }

    /// Creation answers 201, deletion 204, the rest 200.
    public var acceptedStatuses: Set<Int> {
        switch self {
        case .currentUser, .listIssues, .getIssue, .updateIssue: return [200]
        case .createIssue: return [201]
        case .deleteIssue: return [204]
        }
    }

    /// Every answer with a body is checked against its template; a deletion has no body.
    public var validation: ValidationPolicy {
        switch self {
        case .currentUser, .listIssues, .getIssue, .createIssue, .updateIssue: return .automatic(.all)
        case .deleteIssue: return .custom { _ in [] }
        }
    }

    /// TrackerService's error bodies: `{"message", "documentation_url", "errors"}`.
    public var errorModel: (any APIErrorModel.Type)? { TrackerError.self }

    /// The API the methods belong to: the one bound to the current task by `withAPI`, else the
    /// process's `TrackerAPI.processAPI`.
    public static var api: APIScope { taskAPI ?? processAPI }

    /// The process's tracker API.
    public static let processAPI = APIScope(name: "tracker")

    @TaskLocal static var taskAPI: APIScope?

    /// Runs `body` with `scope` as the tracker API of the current task and its child tasks (a
    /// test, or a second tracker account, gets an API of its own).
    public static func withAPI<Result: Sendable>(_ scope: APIScope, _ body: () async throws -> Result) async rethrows -> Result {
        try await $taskAPI.withValue(scope) { try await body() }
    }
}
