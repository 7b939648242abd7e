import APILayer
import Foundation
import NetOps
import Templater
import TestSupport
import Testing
import Validator

/// The model of DemoServer's `/json`.
private struct Project: Decodable, Sendable, Equatable {
    var id: Int
    var name: String
    var active: Bool
    var score: Double
    var tags: [String]
}

/// Sees whether a stub still carries a rules key.
private struct RulesProbe: Decodable, Sendable {
    var name: String
    var nameRules: [String: Bool]?

    enum CodingKeys: String, CodingKey {
        case name
        case nameRules = "name-Rules"
    }
}

/// A model `/json` does not fit: its `id` is a number.
private struct WrongProject: Decodable, Sendable {
    var id: String
}

private let projectTemplate: JSONValue = .object([
    "id": .int(1), "name": .string("sample"), "name-Rules": .object(["isOptional": .bool(false)]),
    "active": .bool(true), "score": .double(1.5), "tags": .array([.string("tag")]), "owner": .null,
])

/// Runs `body` with a default API of its own (bound to the test's task) set up on a fresh
/// template folder: nothing of the process's default API is touched.
private func withFacade(
    scope: APIScope = APIScope(name: "pipeline"), baseURL: URL?, templates: [String: JSONValue] = [:],
    stubMode: StubMode = .off, _ body: () async throws -> Void
) async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-pipeline-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = TemplateStore(directory: folder)
    for (name, template) in templates { try store.write(template, for: name) }
    scope.configure {
        $0.baseURL = baseURL
        $0.templates = store
        $0.stubMode = stubMode
    }
    try await APIManager.withDefaultAPI(scope) { try await body() }
}

/// `body`'s APIError, or a recorded issue when it did not throw one.
private func apiError<T>(_ body: () async throws(APIError) -> T) async -> APIError? {
    do {
        let value = try await body()
        Issue.record("expected an APIError, got \(value)")
        return nil
    } catch {
        return error
    }
}

/// What DemoServer's `/echo` saw.
private struct EchoSeen: Decodable, Sendable {
    var query: [String: String]
    var headers: [String: String]
}

@Suite("Pipeline", .serialized, .processGate(.shared, minutes: 5))
struct PipelineTests {
    /// With authentication configured, the coordinator alone places the token, where the method
    /// wants it: once, and fresh again after a refresh.
    @Test func authenticatedCallsCarryTheTokenOnceWhereTheMethodSays() async throws {
        let (server, realm, realmBase) = try await TestServer.newRealm()
        let scope = APIScope(name: realm)
        scope.configureAuthentication(
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: realmBase.appendingPathComponent("oauth/token")),
            store: InMemoryTokenStore(Token(accessToken: "stale-token", refreshToken: "seed-1")))
        let templates: [String: JSONValue] = ["echo": .object(["method": .string("GET")]), "protected": .object(["ok": .bool(true)])]

        try await withFacade(scope: scope, baseURL: server.baseURL, templates: templates) {
            let seen = try await APIManager.call(AdHocMethod("echo", token: .queryParameter("access_token")), as: EchoSeen.self)
            #expect(seen.query["access_token"] == "stale-token")
            #expect(seen.headers["authorization"] == nil)
            let header = try await APIManager.call(AdHocMethod("echo"), as: EchoSeen.self)
            #expect(header.headers["authorization"] == "Bearer stale-token")
            #expect(header.query["access_token"] == nil)
            let none = try await APIManager.call(AdHocMethod("echo", token: nil), as: EchoSeen.self)
            #expect(none.headers["authorization"] == nil && none.query["access_token"] == nil)
        }
        try await withFacade(scope: scope, baseURL: realmBase.appendingPathComponent("/"), templates: templates) {
            struct Answer: Decodable, Sendable { var ok: Bool }
            let answer = try await APIManager.call(AdHocMethod("protected", token: .queryParameter("access_token")), as: Answer.self)
            #expect(answer.ok)
            #expect(server.tokenAuthority(realm: realm).snapshot.tokenRequests == 1)
        }
    }

    @Test func validatesAndMapsAResponse() async throws {
        let server = try await TestServer.get()
        try await withFacade(baseURL: server.baseURL, templates: ["json": projectTemplate]) {
            let project = try await APIManager.call(AdHocMethod("json"), as: Project.self)
            #expect(project == Project(id: 1, name: "APILayer", active: true, score: 4.5, tags: ["swift", "linux"]))
            let tags = try await APIManager.call(AdHocMethod("json"), as: [String].self, at: "tags")
            #expect(tags == ["swift", "linux"])
        }
    }

    /// The scope's response size limit reaches every call: a longer body fails at the transport
    /// stage, before it is parsed.
    @Test func aResponseLongerThanTheScopesLimitFailsTheCall() async throws {
        let server = try await TestServer.get()
        #expect(APIScope.Configuration().maximumResponseBodyBytes == 64 << 20)
        let scope = APIScope(name: "pipeline-limit")
        scope.configure { $0.maximumResponseBodyBytes = 20 }
        try await withFacade(scope: scope, baseURL: server.baseURL, templates: ["json": projectTemplate]) {
            let error = await apiError { () async throws(APIError) -> Project in try await APIManager.call(AdHocMethod("json"), as: Project.self) }
            #expect(error?.stageName == "transport")
            guard case let .transport(failure)? = error?.stage, case let .transport(code, _) = failure.kind else {
                Issue.record("expected a transport error, got \(String(describing: error))")
                return
            }
            #expect(code == BaseOperation.responseBodyTooLargeCode)
        }
        let adopted = DTO.get(server.baseURL)
        scope.adopt(adopted)
        #expect(adopted.maximumResponseBodyBytes == 20)
    }

    @Test func completionStyleReturnsTheOperation() async throws {
        let server = try await TestServer.get()
        try await withFacade(baseURL: server.baseURL, templates: ["json": projectTemplate]) {
            let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Project, APIError>, Never>) in
                let operation = APIManager.call(AdHocMethod("json"), as: Project.self) { continuation.resume(returning: $0) }
                #expect(operation is APIOperation<Project>)
            }
            let project = try result.get()
            #expect(project.name == "APILayer")
            let failed = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Project, APIError>, Never>) in
                let operation = APIManager.call(AdHocMethod("status/500"), as: Project.self) { continuation.resume(returning: $0) }
                #expect(operation != nil)
            }
            guard case let .failure(error) = failed else {
                Issue.record("succeeded")
                return
            }
            #expect(error.stageName == "server")
            #expect(error.operation?.statusCode == 500)
        }
    }

    @Test func parserStepRunsBeforeMapping() async throws {
        let server = try await TestServer.get()
        try await withFacade(baseURL: server.baseURL, templates: ["json": projectTemplate]) {
            let first = try await APIManager.call(AdHocMethod("json"), as: String.self) { json in
                guard case let .array(tags) = try Parser.value(at: "tags", in: json), let first = tags.first else {
                    throw ParserError.missing(path: "tags.0", foundUpTo: "tags")
                }
                return first
            }
            #expect(first == "swift")
            let error = await apiError { () async throws(APIError) in
                try await APIManager.call(AdHocMethod("json"), as: String.self) { _ in throw ParserError.missing(path: "x", foundUpTo: "") }
            }
            #expect(error?.stageName == "parsing")
        }
    }

    @Test func mergedPropertiesReachTheServer() async throws {
        struct Echo: Decodable, Sendable {
            var method: String
            var body: String
            var headers: [String: String]
        }
        let server = try await TestServer.get()
        let method = AdHocMethod("echo", .post, .form, defaults: ["v": "5", "kept": "yes"], validation: .custom { _ in [] })
        try await withFacade(baseURL: server.baseURL) {
            let echo = try await APIManager.call(method, properties: ["v": "6", "text": "a b"], as: Echo.self)
            #expect(echo.method == "POST")
            #expect(echo.body == "kept=yes&text=a%20b&v=6")
            #expect(echo.headers["content-type"]?.hasPrefix("application/x-www-form-urlencoded") == true)
        }
    }

    @Test func multipartGoesThroughAnUpload() async throws {
        struct Parts: Decodable, Sendable {
            struct Part: Decodable, Sendable {
                var name: String
                var filename: String?
                var length: Int
            }
            var parts: [Part]
        }
        let server = try await TestServer.get()
        let method = AdHocMethod("multipart", .post, .multipart, defaults: ["album": "7"], validation: .custom { _ in [] })
        try await withFacade(baseURL: server.baseURL) {
            let photo = MultipartFile(data: Data(repeating: 0x41, count: 1000), filename: "p.jpg", contentType: "image/jpeg")
            let answer = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Parts, APIError>, Never>) in
                let operation = APIManager.call(method, properties: ["photo": photo], as: Parts.self) { continuation.resume(returning: $0) }
                #expect(operation?.request?.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("multipart/form-data") == true)
            }
            let parts = try answer.get().parts
            #expect(parts.map(\.name) == ["album", "photo"])
            #expect(parts.last?.filename == "p.jpg")
            #expect(parts.last?.length == 1000)
        }
    }

    @Test func cancellingTheTaskCancelsTheOperation() async throws {
        let server = try await TestServer.get()
        try await withFacade(baseURL: server.baseURL) {
            let started = Date()
            let task = Task { () async throws(APIError) -> Int in
                try await APIManager.call(
                    AdHocMethod("delay", validation: .custom { _ in [] }), properties: ["seconds": 30],
                    as: Int.self, at: "delayed")
            }
            try await Task.sleep(nanoseconds: 100_000_000)
            task.cancel()
            let result = await task.result
            guard case let .failure(failure) = result, let error = failure as? APIError,
                case let .transport(netOpsError) = error.stage
            else {
                Issue.record("\(result)")
                return
            }
            #expect(netOpsError.kind == .cancelled)
            #expect(error.operation?.state == .cancelled)
            // Well before the server's answer after 30 s.
            #expect(Date().timeIntervalSince(started) < 20)
        }
    }

    @Test func emptyBodyIsNoContent() async throws {
        let server = try await TestServer.get()
        try await withFacade(baseURL: server.baseURL) {
            let answer = try await APIManager.call(AdHocMethod("bytes/0", validation: .custom { _ in [] }), as: NoContent.self)
            #expect(answer == NoContent())
            let error = await apiError { () async throws(APIError) in
                try await APIManager.call(AdHocMethod("bytes/0", validation: .custom { _ in [] }), as: Project.self)
            }
            #expect(error?.stageName == "parsing")
        }
    }

    @Test func constructionFails() async throws {
        try await withFacade(baseURL: nil) {
            let error = await apiError { () async throws(APIError) in try await APIManager.call(AdHocMethod("json"), as: Project.self) }
            #expect(error?.stageName == "construction")
            #expect(error?.operation == nil)
        }
    }

    @Test func transportFails() async throws {
        try await withFacade(baseURL: URL(string: "http://127.0.0.1:9")!, templates: ["json": projectTemplate]) {
            let error = await apiError { () async throws(APIError) in try await APIManager.call(AdHocMethod("json"), as: Project.self) }
            #expect(error?.stageName == "transport")
            #expect(error?.operation != nil)
        }
    }

    @Test func serverStatusFails() async throws {
        let server = try await TestServer.get()
        try await withFacade(baseURL: server.baseURL) {
            let error = await apiError { () async throws(APIError) in
                try await APIManager.call(AdHocMethod("status/500"), as: Project.self)
            }
            guard case let .server(status, message)? = error?.stage else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(status == 500)
            #expect(message.contains("500"))
            #expect(error?.operation?.statusCode == 500)
        }
    }

    @Test func bodyErrorIsAServerFailure() async throws {
        let server = try await TestServer.get()
        let method = AdHocMethod(
            "json",
            bodyError: { json in
                guard case let .object(body) = json, body["owner"] == .null else { return nil }
                return "project has no owner"
            })
        try await withFacade(baseURL: server.baseURL, templates: ["json": projectTemplate]) {
            let error = await apiError { () async throws(APIError) in try await APIManager.call(method, as: Project.self) }
            guard case let .server(status, message)? = error?.stage else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(status == 200)
            #expect(message == "project has no owner")
        }
    }

    @Test func validationFailureNamesThePointer() async throws {
        let server = try await TestServer.get()
        var broken = projectTemplate
        if case var .object(object) = broken {
            object["name"] = .int(1)
            broken = .object(object)
        }
        try await withFacade(baseURL: server.baseURL, templates: ["json": broken]) {
            let error = await apiError { () async throws(APIError) in try await APIManager.call(AdHocMethod("json"), as: Project.self) }
            guard case let .validation(errors)? = error?.stage else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(errors.map(\.path) == ["/name"])
            #expect(error?.operation?.statusCode == 200)
        }
    }

    @Test func customValidationNeedsNoTemplate() async throws {
        let server = try await TestServer.get()
        let rejecting = AdHocMethod(
            "json",
            validation: .custom { _ in
                [ValidationError(path: "/id", check: .custom("positive"), expected: "> 1", actual: "1")]
            })
        try await withFacade(baseURL: server.baseURL) {
            let error = await apiError { () async throws(APIError) in try await APIManager.call(rejecting, as: Project.self) }
            guard case let .validation(errors)? = error?.stage else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(errors.first?.path == "/id")
            let accepting = AdHocMethod("json", validation: .custom { _ in [] })
            let accepted = try await APIManager.call(accepting, as: Project.self)
            #expect(accepted.id == 1)
        }
    }

    @Test func wrongModelFailsMapping() async throws {
        let server = try await TestServer.get()
        try await withFacade(baseURL: server.baseURL, templates: ["json": projectTemplate]) {
            let error = await apiError { () async throws(APIError) in
                try await APIManager.call(AdHocMethod("json"), as: WrongProject.self)
            }
            guard case let .mapping(mapperError)? = error?.stage else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(mapperError.description.contains("id"))
        }
    }

    @Test func missingTemplateIsTyped() async throws {
        let server = try await TestServer.get()
        try await withFacade(baseURL: server.baseURL) {
            let error = await apiError { () async throws(APIError) in try await APIManager.call(AdHocMethod("json"), as: Project.self) }
            #expect(error?.stageName == "templateMissing")
            #expect(error?.operation?.statusCode == 200)
        }
    }

    @Test func stubsAnswerFromTemplatesOffline() async throws {
        let offline = URL(string: "http://127.0.0.1:9")!
        try await withFacade(baseURL: offline, templates: ["json": projectTemplate], stubMode: .immediate) {
            let project = try await APIManager.call(AdHocMethod("json"), as: Project.self)
            #expect(project == Project(id: 1, name: "sample", active: true, score: 1.5, tags: ["tag"]))
            let probe = try await APIManager.call(AdHocMethod("json"), as: RulesProbe.self)
            #expect(probe.name == "sample")
            #expect(probe.nameRules == nil)
            let error = await apiError { () async throws(APIError) in
                try await APIManager.call(AdHocMethod("absent"), as: Project.self)
            }
            #expect(error?.stageName == "templateMissing")
        }
        try await withFacade(baseURL: offline, templates: ["json": projectTemplate], stubMode: .delayed(0.05)) {
            let started = Date()
            let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Project, APIError>, Never>) in
                let operation = APIManager.call(AdHocMethod("json"), as: Project.self) { continuation.resume(returning: $0) }
                #expect(operation != nil)
            }
            let project = try result.get()
            #expect(project.name == "sample")
            #expect(Date().timeIntervalSince(started) >= 0.04)
        }
        #expect(APIManager.stubMode == .off)
    }
}
