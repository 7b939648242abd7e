import APILayer
import DemoServer
import Foundation
import NetOps
import SampleAPI
import SampleTemplates
import Templater
import TestSupport
import Testing
import Validator

/// TrackerAPI, the REST sample: templates in subfolders, typed operations, its own scope.
@Suite("TrackerAPI")
struct TrackerAPITests {
    /// Every method with a template has its file in a subfolder, and every template compiles.
    @Test func templatesLiveInSubfoldersAndCompile() throws {
        let store = TemplateStore(directory: SampleTemplates.trackerDirectory)
        let names = try store.templateNames().map(\.rawValue).sorted()
        #expect(names == ["issues/create", "issues/get", "issues/list-for-repo", "issues/update", "user/get"])
        for method in TrackerAPI.allCases {
            guard case .automatic = method.validation else { continue }
            let raw = try #require(try store.template(for: method.templateName), "\(method.templateName)")
            _ = try Template(raw)
        }
    }

    /// Stubs of the tracker API answer from the nested templates, offline, typed.
    @Test func stubsAnswerFromNestedTemplates() async throws {
        var configuration = APIScope.Configuration(
            templates: TemplateStore(directory: SampleTemplates.trackerDirectory),
            stubMode: .immediate)
        configuration.mapperConfiguration.dateDecodingStrategy = .iso8601
        try await TrackerAPI.withAPI(APIScope(name: "tracker-stubs", configuration: configuration)) {
            let issues = try await TrackerAPI.issues(owner: "octo-org", repo: "hello-world").run()
            #expect(issues.count == 1)
            #expect(issues.first?.title == "Crash when the token expires")
            #expect(issues.first?.body == nil)
            let user = try await TrackerAPI.currentUser().run()
            #expect(user.login == "octocat")
            // A method that accepts 201 only, and one that answers 204 without a body.
            let creation = TrackerAPI.createIssue(owner: "octo-org", repo: "hello-world", title: "Stubbed")
            #expect(try await creation.run().number == 7)
            #expect(creation.statusCode == 201)
            let deletion = TrackerAPI.deleteIssue(7, owner: "octo-org", repo: "hello-world")
            #expect(try await deletion.run() == NoContent())
            #expect(deletion.statusCode == 204)
        }
    }
}

/// TrackerAPI against DemoServer's TrackerService, in a realm of its own and a scope of its own.
@Suite("TrackerAPI live", .processGate(.shared, minutes: 5))
struct TrackerAPILiveTests {
    private static let repo = (owner: TrackerService.seededRepository.owner, name: TrackerService.seededRepository.repo)

    private func withTracker(_ body: (DemoServer, String, AuthenticationCoordinator) async throws -> Void) async throws {
        let server = try await TestServer.get()
        let realm = "t\(UUID().uuidString.prefix(8))"
        try await TrackerAPI.withAPI(APIScope(name: realm)) {
            let coordinator = TrackerAPI.prepare(
                baseURL: server.trackerBaseURL(realm: realm), tokenURL: server.tokenURL(realm: realm),
                clientID: DemoServer.clientCredentials.id, clientSecret: DemoServer.clientCredentials.secret,
                templates: TemplateStore(directory: SampleTemplates.trackerDirectory))
            try await body(server, realm, coordinator)
        }
    }

    @Test func readsPagesAndIssuesValidatedAgainstNestedTemplates() async throws {
        try await withTracker { _, _, coordinator in
            let user = try await TrackerAPI.currentUser().run()
            #expect(user == TrackerUser(login: "octocat", id: 1, name: "The Octocat"))
            #expect(coordinator.refreshCount == 1, "the client-credentials grant gave the first token")

            let page = TrackerAPI.issues(owner: Self.repo.owner, repo: Self.repo.name, perPage: 10)
            let issues = try await page.run()
            #expect(issues.count == 10)
            #expect(issues.map(\.number) == issues.map(\.number).sorted(by: >), "newest first")
            #expect(issues.allSatisfy { $0.state == "open" })
            #expect(page.responseHeaders["Link"]?.contains(#"rel="next""#) == true)

            let seven = try await TrackerAPI.issue(7, owner: Self.repo.owner, repo: Self.repo.name).run()
            #expect(seven.number == 7 && seven.body != nil && seven.closedAt == nil)
            let five = try await TrackerAPI.issue(5, owner: Self.repo.owner, repo: Self.repo.name).run()
            #expect(five.body == nil)
            let closed = try await TrackerAPI.issue(6, owner: Self.repo.owner, repo: Self.repo.name).run()
            #expect(closed.state == "closed" && closed.closedAt != nil)
        }
    }

    @Test func createsUpdatesAndDeletesWith201And204() async throws {
        try await withTracker { _, _, _ in
            let creation = TrackerAPI.createIssue(
                owner: Self.repo.owner, repo: Self.repo.name, title: "Crash on resume",
                body: "Steps…", labels: ["bug"])
            let created = try await creation.run()
            #expect(creation.statusCode == 201)
            #expect(creation.responseHeaders["Location"]?.hasSuffix("/issues/\(created.number)") == true)
            #expect(created.title == "Crash on resume" && created.labels.map(\.name) == ["bug"])

            let closed = try await TrackerAPI.updateIssue(
                created.number, owner: Self.repo.owner, repo: Self.repo.name,
                state: "closed"
            ).run()
            #expect(closed.state == "closed" && closed.closedAt != nil)

            let deletion = TrackerAPI.deleteIssue(created.number, owner: Self.repo.owner, repo: Self.repo.name)
            #expect(try await deletion.run() == NoContent())
            #expect(deletion.statusCode == 204)

            let gone = TrackerAPI.issue(created.number, owner: Self.repo.owner, repo: Self.repo.name)
            _ = try? await gone.run()
            guard case let .failure(error)? = gone.result else {
                Issue.record("a deleted issue was found")
                return
            }
            #expect(error.stageName == "server")
            #expect((error.serverError as? TrackerError)?.message == "Not Found")
        }
    }

    @Test func errorBodiesComeBackAsTrackerErrors() async throws {
        try await withTracker { _, _, _ in
            let refused = TrackerAPI.createIssue(owner: Self.repo.owner, repo: Self.repo.name, title: "  ")
            _ = try? await refused.run()
            guard case let .failure(error)? = refused.result, case let .server(status, message) = error.stage else {
                Issue.record("expected a server failure, got \(String(describing: refused.result))")
                return
            }
            #expect(status == 422)
            #expect(message == "Validation Failed (title missing_field)")
            let model = try #require(error.serverError as? TrackerError)
            #expect(model.errors == [TrackerError.FieldError(resource: "Issue", field: "title", code: "missing_field")])
            #expect(model.documentationURL?.hasPrefix("https://") == true)
        }
    }

    /// A `/` in a path value travels as `%2F` inside one segment; `..` never leaves the client.
    @Test func pathValuesStayOneSegmentOnTheWire() async throws {
        try await withTracker { server, realm, _ in
            let slashed = try await TrackerAPI.issues(owner: "octo-org", repo: "a/b").run()
            #expect(slashed.isEmpty)
            let escaping = TrackerAPI.issues(owner: "octo-org", repo: "..")
            _ = try? await escaping.run()
            guard case let .failure(error)? = escaping.result else {
                Issue.record("'..' was sent")
                return
            }
            #expect(error.stageName == "construction")
            let paths = server.trackerService(realm: realm).receivedPaths
            #expect(paths.contains("/rest/\(realm)/repos/octo-org/a%2Fb/issues"))
            #expect(!paths.contains { $0.contains("/../") || $0.hasSuffix("/..") })
        }
    }

    /// Every token expired: a burst of calls costs one client-credentials grant, and all succeed.
    @Test func anExpiredTokenCostsOneGrantForABurst() async throws {
        try await withTracker { server, realm, coordinator in
            _ = try await TrackerAPI.currentUser().run()
            let grantsBefore = server.tokenAuthority(realm: realm).snapshot.tokenRequests
            server.tokenAuthority(realm: realm).configure(mode: nil, delay: 0.1, lifetime: nil, maxUses: nil, expireAll: true)
            let numbers = try await withThrowingTaskGroup(of: Int.self) { group in
                for number in 1...20 {
                    group.addTask { try await TrackerAPI.issue(number, owner: Self.repo.owner, repo: Self.repo.name).run().number }
                }
                var all: [Int] = []
                for try await number in group { all.append(number) }
                return all.sorted()
            }
            #expect(numbers == Array(1...20))
            #expect(server.tokenAuthority(realm: realm).snapshot.tokenRequests == grantsBefore + 1)
            #expect(coordinator.refreshCount == 2)
        }
    }
}
