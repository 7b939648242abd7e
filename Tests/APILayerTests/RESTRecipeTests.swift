import APILayer
import Foundation
import NetOps
import Templater
import TestSupport
import Testing
import Validator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A REST API declared by the recipe: paths with placeholders, a JSON body with query keys.
private enum RepoAPI: String, APIMethod {
    case listIssues = "issues/list-for-repo"
    case getIssue = "issues/get"
    case createIssue = "issues/create"

    var path: String {
        switch self {
        case .listIssues, .createIssue: return "repos/{owner}/{repo}/issues"
        case .getIssue: return "repos/{owner}/{repo}/issues/{number}"
        }
    }

    var httpMethod: HTTPMethod {
        switch self {
        case .listIssues, .getIssue: return .get
        case .createIssue: return .post
        }
    }

    var encoding: RequestEncoding {
        switch self {
        case .listIssues, .getIssue: return .query
        case .createIssue: return .json
        }
    }

    var defaultParameters: Parameters {
        switch self {
        case .listIssues: return ["state": "open"]
        case .getIssue, .createIssue: return [:]
        }
    }

    var queryKeys: Set<String> {
        switch self {
        case .createIssue: return ["dry_run"]
        case .listIssues, .getIssue: return []
        }
    }

    var headers: [String: String] { ["Accept": "application/vnd.demo+json", "X-Client": "method"] }
}

private let base = URL(string: "https://tracker.example.com/api/")!

/// One path value and the path it must give, or the reason it is refused.
struct PathCase: Sendable, CustomTestStringConvertible {
    let name: String
    let repo: any Sendable
    let expectedPath: String?
    let refusal: String?

    var testDescription: String { name }

    static let all: [PathCase] = [
        PathCase(name: "plain", repo: "hello-world", expectedPath: "/api/repos/octo/hello-world/issues/7", refusal: nil),
        PathCase(name: "slash", repo: "a/b", expectedPath: "/api/repos/octo/a%2Fb/issues/7", refusal: nil),
        PathCase(name: "traversal inside a value", repo: "../../admin", expectedPath: "/api/repos/octo/..%2F..%2Fadmin/issues/7", refusal: nil),
        PathCase(name: "dots inside a name", repo: "a..b", expectedPath: "/api/repos/octo/a..b/issues/7", refusal: nil),
        PathCase(name: "space", repo: "my repo", expectedPath: "/api/repos/octo/my%20repo/issues/7", refusal: nil),
        PathCase(name: "unicode", repo: "ünï", expectedPath: "/api/repos/octo/%C3%BCn%C3%AF/issues/7", refusal: nil),
        PathCase(name: "query and fragment", repo: "x?y#z", expectedPath: "/api/repos/octo/x%3Fy%23z/issues/7", refusal: nil),
        PathCase(name: "number", repo: 42, expectedPath: "/api/repos/octo/42/issues/7", refusal: nil),
        PathCase(name: "dot-dot", repo: "..", expectedPath: nil, refusal: "{repo} is \"..\", which would change the path"),
        PathCase(name: "dot", repo: ".", expectedPath: nil, refusal: "{repo} is \".\", which would change the path"),
        PathCase(name: "empty", repo: "", expectedPath: nil, refusal: "{repo} is empty"),
        PathCase(name: "array", repo: ["a", "b"], expectedPath: nil, refusal: "{repo} needs a single value"),
    ]
}

@Suite("REST recipe")
struct RESTRecipeTests {
    @Test(arguments: PathCase.all)
    func pathValuesAreOneSegmentEach(_ testCase: PathCase) throws {
        let outcome = Result { () throws(APIError) in
            try RequestConstructor.request(
                for: RepoAPI.getIssue, properties: ["owner": "octo", "repo": testCase.repo, "number": 7], baseURL: base)
        }
        switch outcome {
        case let .success(built):
            let url = try #require(built.request.url)
            #expect(testCase.refusal == nil, "built \(url) instead of refusing")
            #expect(url.absoluteString.hasPrefix("https://tracker.example.com/"))
            #expect(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath == testCase.expectedPath)
            #expect(url.query == nil, "values used in the path are not sent again: \(url)")
        case let .failure(error):
            let refusal = try #require(testCase.refusal, "refused: \(error)")
            #expect(error.stageName == "construction")
            #expect(error.description.contains(refusal), "\(error)")
            #expect(error.method == "issues/get")
        }
    }

    @Test func aMissingPlaceholderIsNamed() {
        #expect(throws: APIError.self) {
            try RequestConstructor.request(for: RepoAPI.getIssue, properties: ["owner": "octo", "number": 1], baseURL: base)
        }
        do {
            _ = try RequestConstructor.request(for: RepoAPI.getIssue, properties: ["owner": "octo", "number": 1], baseURL: base)
        } catch {
            #expect(
                error.description
                    == "issues/get: construction failed: no value for the path placeholder {repo} of \"repos/{owner}/{repo}/issues/{number}\"")
        }
    }

    @Test func pathValuesLeaveTheQueryAndDefaultsStay() throws {
        let built = try RequestConstructor.request(
            for: RepoAPI.listIssues, properties: ["owner": "octo", "repo": "hello", "page": 2], baseURL: base)
        let url = try #require(built.request.url)
        #expect(url.path == "/api/repos/octo/hello/issues")
        #expect(url.query == "page=2&state=open")
    }

    @Test func aJSONBodyKeepsItsQueryKeysInTheQuery() throws {
        let built = try RequestConstructor.request(
            for: RepoAPI.createIssue,
            properties: ["owner": "octo", "repo": "hello", "title": "Crash", "labels": ["bug"], "dry_run": true], baseURL: base)
        let request = built.request
        #expect(request.httpMethod == "POST")
        #expect(request.url?.absoluteString == "https://tracker.example.com/api/repos/octo/hello/issues?dry_run=true")
        let body = try #require(request.httpBody)
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(Set(object.keys) == ["title", "labels"])
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test func callHeadersGoOverTheMethodsHeaders() throws {
        let built = try RequestConstructor.request(
            for: RepoAPI.listIssues, properties: ["owner": "o", "repo": "r"], baseURL: base,
            headers: ["X-Client": "call", "X-Request-ID": "abc"])
        #expect(built.request.value(forHTTPHeaderField: "Accept") == "application/vnd.demo+json")
        #expect(built.request.value(forHTTPHeaderField: "X-Client") == "call")
        #expect(built.request.value(forHTTPHeaderField: "X-Request-ID") == "abc")
    }

    /// A template name that tries to leave the template folder is refused before any file is read.
    @Test(arguments: ["../outside", "/etc/passwd", "a/../../b", "a\\b", "nul\u{0}"])
    func aTemplateNameThatLeavesItsFolderIsRefused(_ name: String) async throws {
        struct Escaping: APIMethod {
            var rawValue: String
            init(rawValue: String) { self.rawValue = rawValue }
            var path: String { "json" }
            var httpMethod: HTTPMethod { .get }
            var encoding: RequestEncoding { .query }
            var defaultParameters: Parameters { [:] }
        }
        let server = try await TestServer.get()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-escape-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = APIScope.Configuration(baseURL: server.baseURL, templates: TemplateStore(directory: folder))
        await APIManager.withDefaultAPI(APIScope(name: "escape", configuration: configuration)) {
            let operation = APIManager.operation(Escaping(rawValue: name), as: StatusBody.self)
            _ = try? await operation.run()
            guard case let .failure(error)? = operation.result else {
                Issue.record("not refused")
                return
            }
            #expect(error.stageName == "templateInvalid", "\(error)")
        }
    }

    @Test func templateNamesDefaultToTheRawValueAndMayHoldASlash() {
        #expect(RepoAPI.listIssues.templateName == "issues/list-for-repo")
        #expect(RepoAPI.listIssues.path == "repos/{owner}/{repo}/issues")
        #expect(RepoAPI.listIssues.acceptedStatuses == Set(200..<300))
        #expect(RepoAPI.api === APIManager.defaultAPI)
    }
}

// MARK: Statuses and error bodies, live

/// DemoServer's `/status/{code}` answers `{"status": code}` with that status.
private struct StatusBody: Decodable, Sendable, Equatable {
    var status: Int
}

/// The same body as an API's error model.
private struct StatusError: APIErrorModel, Equatable {
    var status: Int
    var description: String { "the server said \(status)" }
}

/// An error model the body does not fit.
private struct MessageError: APIErrorModel {
    var message: String
    var description: String { message }
}

private enum StatusAPI: String, APIMethod {
    case create = "status.create"
    case read = "status.read"
    case readWithMismatchedErrors = "status.mismatched"

    var path: String { "status/{code}" }
    var httpMethod: HTTPMethod { .get }
    var encoding: RequestEncoding { .query }
    var defaultParameters: Parameters { [:] }
    var validation: ValidationPolicy { .custom { _ in [] } }
    var tokenPlacement: TokenPlacement? { nil }

    var acceptedStatuses: Set<Int> {
        switch self {
        case .create: return [201]
        case .read, .readWithMismatchedErrors: return Set(200..<300)
        }
    }

    var errorModel: (any APIErrorModel.Type)? {
        switch self {
        case .create, .read: return StatusError.self
        case .readWithMismatchedErrors: return MessageError.self
        }
    }
}

extension RESTRecipeTests {
    private func withStatusAPI(_ body: () async throws -> Void) async throws {
        let server = try await TestServer.get()
        try await APIManager.withDefaultAPI(APIScope(name: "statuses", configuration: .init(baseURL: server.baseURL))) {
            try await body()
        }
    }

    @Test func aMethodAcceptsTheStatusesItDeclares() async throws {
        try await withStatusAPI {
            let created = try await APIManager.call(StatusAPI.create, properties: ["code": 201], as: StatusBody.self)
            #expect(created == StatusBody(status: 201))
            // 200 is a success elsewhere, not for a method that declares 201 only.
            let operation = APIManager.operation(StatusAPI.create, properties: ["code": 200], as: StatusBody.self)
            await #expect(throws: APIError.self) { try await operation.run() }
            guard case let .failure(error)? = operation.result, case let .server(status, message) = error.stage else {
                Issue.record("expected a server failure, got \(String(describing: operation.result))")
                return
            }
            #expect(status == 200)
            #expect(message == "the server said 200")
            #expect(operation.state == .failedFinished)
        }
    }

    @Test func noContentAnswersA204() async throws {
        try await withStatusAPI {
            let answer = try await APIManager.call(StatusAPI.read, properties: ["code": 204], as: NoContent.self)
            #expect(answer == NoContent())
        }
    }

    @Test func errorBodiesAreDecodedIntoTheAPIsModel() async throws {
        try await withStatusAPI {
            let operation = APIManager.operation(StatusAPI.read, properties: ["code": 404], as: StatusBody.self)
            _ = try? await operation.run()
            guard case let .failure(error)? = operation.result else {
                Issue.record("no failure")
                return
            }
            #expect(error.stageName == "server")
            #expect(error.serverError as? StatusError == StatusError(status: 404))
            #expect(error.description == "status.read: server failed: HTTP 404: the server said 404")
            // The body stays readable on the operation.
            #expect(String(decoding: operation.receivedData, as: UTF8.self) == #"{"status":404}"#)
        }
    }

    @Test func aBodyThatDoesNotFitTheErrorModelIsQuotedAsIs() async throws {
        try await withStatusAPI {
            let operation = APIManager.operation(StatusAPI.readWithMismatchedErrors, properties: ["code": 500], as: StatusBody.self)
            _ = try? await operation.run()
            guard case let .failure(error)? = operation.result, case let .server(status, message) = error.stage else {
                Issue.record("no server failure")
                return
            }
            #expect(status == 500)
            #expect(error.serverError == nil)
            #expect(message == #"{"status":500}"#)
        }
    }
}
