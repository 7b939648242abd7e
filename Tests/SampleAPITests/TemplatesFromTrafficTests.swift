import APILayer
import DemoServer
import Foundation
import MetricsTestKit
import NetOps
import SampleAPI
import SampleTemplates
import TemplateInference
import Templater
import TestSupport
import Testing
import Validator

/// The templates-from-traffic workflow of Docs/templates-from-traffic.md, end to end against
/// DemoServer on both engines: record SampleAPI's and TrackerAPI's answers, review the inferred
/// rules, ship them, change DemoServer's answers, see the breaking change in the diff, and count
/// the drift in report-only mode.
/// It parks calls for a token refresh, so it never runs beside a load test (the process gate).
@Suite("Templates from traffic", .timeLimit(.minutes(3)), .processGate(.shared))
struct TemplatesFromTrafficTests {
    private static let repo = TrackerService.seededRepository

    /// One phase of the workflow: a SampleAPI scope and a TrackerAPI scope for `realm`, on
    /// `session`, recording into `recorded/{sample,tracker}`, validating against `templates`.
    private struct Phase {
        let sample: APIScope
        let tracker: APIScope

        init(
            _ name: String, server: DemoServer, realm: String, session: NetworkSession, recorded: URL,
            sampleTemplates: TemplateStore, trackerTemplates: TemplateStore, mode: ValidationMode,
            metrics: TestMetrics, logs: LogCapture
        ) {
            sample = APIScope(name: "sample-\(name)")
            tracker = APIScope(name: "tracker-\(name)")
            _ = APIManager.withDefaultAPI(sample) {
                SampleAPI.prepareAPIManager(
                    baseURL: server.sampleAPIBaseURL(realm: realm), tokenURL: server.tokenURL(realm: realm),
                    store: InMemoryTokenStore(SampleAPI.signedOutToken(refreshToken: "seed-\(realm)-\(name)")), templates: sampleTemplates)
            }
            // What `TrackerAPI.prepare` does, on this phase's scope.
            tracker.configure {
                $0.baseURL = server.trackerBaseURL(realm: realm)
                $0.templates = trackerTemplates
                $0.mapperConfiguration.dateDecodingStrategy = .iso8601
            }
            tracker.configureAuthentication(
                authenticator: OAuthClientCredentialsAuthenticator(
                    tokenURL: server.tokenURL(realm: realm), clientID: DemoServer.clientCredentials.id,
                    clientSecret: DemoServer.clientCredentials.secret),
                store: InMemoryTokenStore())
            for (scope, folder) in [(sample, "sample"), (tracker, "tracker")] {
                scope.configure {
                    $0.session = session
                    $0.templateRecording = TemplateRecording(folder: recorded.appendingPathComponent(folder), sampleRate: 1)
                    $0.validationMode = mode
                    $0.metricsFactory = metrics
                    $0.logger = logs.logger()
                }
            }
        }

        /// Runs `body` with SampleAPI's default API and TrackerAPI's API set to this phase's scopes.
        func run(_ body: () async throws -> Void) async throws {
            try await APIManager.withDefaultAPI(sample) {
                try await TrackerAPI.withAPI(tracker) { try await body() }
            }
        }
    }

    /// The calls both phases make: users.get three times, two pages of issues, two issues.
    /// - Returns: The users and the issues the calls gave.
    /// With `usersMap` false the users' calls must fail at mapping (their model cannot follow
    /// the changed answer); any other failure fails the test with its error.
    private static func calls(usersMap: Bool = true) async throws -> (users: Int, issues: Int) {
        var users = 0
        for ids in [[1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11, 12]] {
            if usersMap {
                users += try await APIManager.users(ids).count
            } else {
                let failure = await #expect(throws: APIError.self) { try await APIManager.users(ids) }
                #expect(failure?.stageName == "mapping", "\(String(describing: failure))")
            }
        }
        var issues = try await TrackerAPI.issues(owner: repo.owner, repo: repo.repo, state: "all").run().count
        issues += try await TrackerAPI.issues(owner: repo.owner, repo: repo.repo, state: "all", page: 2).run().count
        _ = try await TrackerAPI.issue(5, owner: repo.owner, repo: repo.repo).run()
        _ = try await TrackerAPI.issue(7, owner: repo.owner, repo: repo.repo).run()
        return (users, issues + 2)
    }

    @Test(arguments: TestEngine.allCases)
    func recordReviewShipChangeDiffAndCountTheDrift(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let realm = "ftt\(UUID().uuidString.prefix(8))"
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-traffic-\(realm)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let metrics = TestMetrics()
        let logs = LogCapture()

        // 1. Record: every answer the calls accept, with the shipped templates in strict mode.
        let recording = Phase(
            "record", server: server, realm: realm, session: engine.makeSession(), recorded: root.appendingPathComponent("recorded"),
            sampleTemplates: TemplateStore(directory: SampleTemplates.directory),
            trackerTemplates: TemplateStore(directory: SampleTemplates.trackerDirectory), mode: .strict, metrics: metrics, logs: logs)
        try await recording.run {
            let (users, issues) = try await Self.calls()
            #expect(users == 12 && issues == 47)
            // Nothing that failed the status check or authentication is recorded: a 404, a body
            // error, and the error body of an expired token (the call is replayed after a refresh).
            await #expect(throws: APIError.self) { try await TrackerAPI.issue(999, owner: Self.repo.owner, repo: Self.repo.repo).run() }
            await #expect(throws: APIError.self) { try await APIManager.users([9_999]) }
            server.tokenAuthority(realm: realm).configure(mode: nil, delay: nil, lifetime: nil, maxUses: nil, expireAll: true)
            #expect(try await APIManager.users([2]).count == 1)
        }
        #expect(recording.sample.templateRecorder?.statistics(for: "users.get")?.merged == 4)
        #expect(recording.tracker.templateRecorder?.statistics(for: "issues/get")?.merged == 2)
        // The service writes what its scopes recorded when it stops.
        await APIService(scopes: [recording.sample, recording.tracker]).stop()
        let recorded = root.appendingPathComponent("recorded")
        let sampleFolder = recorded.appendingPathComponent("sample")
        let trackerFolder = recorded.appendingPathComponent("tracker")
        #expect(try TemplateStore(directory: sampleFolder).templateNames().map(\.rawValue) == ["users.get"])
        #expect(try TemplateStore(directory: trackerFolder).templateNames().map(\.rawValue) == ["issues/get", "issues/list-for-repo"])

        // 2. Review the inferred rules.
        let users = try #require(try TemplateStore(directory: sampleFolder).template(for: "users.get"))
        #expect(rules(users, "/response/0/city")["isOptional"] == .bool(true))
        #expect(rules(users, "/response/0/first_name")["lengthMustBeEqualOrGreaterThan"] == .int(1))
        #expect(rules(users, "/response/0/online")["minimum"] == .int(0))
        #expect(JSONPointer("/response/0/online")!.resolve(in: users) == .int(1))
        let page = try #require(try TemplateStore(directory: trackerFolder).template(for: "issues/list-for-repo"))
        #expect(rules(page, "/0/state")["matchWithOneOf"] == .array([.string("closed"), .string("open")]))
        #expect(rules(page, "/0/body") == ["isNullable": .bool(true), "lengthMustBeEqualOrGreaterThan": .int(1)])
        #expect(rules(page, "/0/closed_at")["isNullable"] == .bool(true))

        // 3. Ship: the recorded templates become the ones the service validates with.
        let shipped = root.appendingPathComponent("shipped")
        try FileManager.default.copyItem(at: recorded, to: shipped)

        // 4. DemoServer's answers change: users' online is a boolean, issues lose null keys.
        server.sampleService(realm: realm).answerVersion = .next
        server.trackerService(realm: realm).answerVersion = .next

        // 5. Report-only against the shipped templates: calls go on, the drift is counted and
        //    logged, and the new answers are recorded for the diff.
        let drift = Phase(
            "drift", server: server, realm: realm, session: engine.makeSession(), recorded: root.appendingPathComponent("next"),
            sampleTemplates: TemplateStore(directory: shipped.appendingPathComponent("sample")),
            trackerTemplates: TemplateStore(directory: shipped.appendingPathComponent("tracker")),
            mode: .reportOnly(logInterval: .seconds(3_600)), metrics: metrics, logs: logs)
        try await drift.run {
            let (users, issues) = try await Self.calls(usersMap: false)
            // The tracker's issues still map (body and closed_at are optional in the model);
            // SampleAPI's users do not (online is an Int there): those calls fail at mapping.
            #expect(issues == 47)
            #expect(users == 0)
            let mapping = await #expect(throws: APIError.self) { try await APIManager.users([1]) }
            #expect(mapping?.stageName == "mapping")
        }
        await APIService(scopes: [drift.sample, drift.tracker]).stop()
        let failures = "apilayer.validation.failures"
        func total(_ dimensions: [String: String]) -> Int64 {
            metrics.counters(label: failures).filter { counter in
                let own = Dictionary(counter.dimensions, uniquingKeysWith: { first, _ in first })
                return dimensions.allSatisfy { own[$0.key] == $0.value }
            }.reduce(0) { $0 + $1.totalValue }
        }
        // 12 users in the three calls and one more: each online is a boolean.
        #expect(total(["api": "sample-drift", "method": "users.get", "rule": "type", "pointer": "/response/*/online"]) == 13)
        // 9 of the 45 issues have no body (every fifth), one more fetched alone.
        #expect(total(["api": "tracker-drift", "method": "issues/list-for-repo", "rule": "key", "pointer": "/*/body"]) == 9)
        #expect(total(["api": "tracker-drift", "method": "issues/get", "rule": "key", "pointer": "/body"]) == 1)
        #expect(total(["api": "tracker-drift", "method": "issues/list-for-repo", "rule": "key", "pointer": "/*/closed_at"]) == 30)
        #expect(metrics.counters(label: failures).allSatisfy { !($0.dimensions.first { $0.0 == "pointer" }?.1.contains("/1/") ?? false) })
        // Logged once per method, pointer and rule in the interval, however often it came.
        let bodyWarnings = logs.messages(atLeast: .warning).filter { $0.contains("issues/list-for-repo") && $0.contains("/body: key") }
        #expect(bodyWarnings.count == 1, "\(bodyWarnings)")

        // 6. The diff of the shipped templates and the ones recorded from the changed API.
        let next = root.appendingPathComponent("next")
        let sampleChanges = try TemplateDiff.changes(from: shipped.appendingPathComponent("sample"), to: next.appendingPathComponent("sample"))
        #expect(sampleChanges.map(\.description) == ["breaking   users.get /response/*/online: type changed from number to boolean"])
        let trackerChanges = try TemplateDiff.changes(
            from: shipped.appendingPathComponent("tracker"), to: next.appendingPathComponent("tracker"))
        #expect(
            trackerChanges.filter(\.isBreaking).map { "\($0.method) \($0.pointer) \($0.kind)" } == [
                "issues/get /body optionalChanged", "issues/get /closed_at keyRemoved",
                "issues/list-for-repo /*/body optionalChanged", "issues/list-for-repo /*/closed_at optionalChanged",
            ])
        // The same from the command line, which a CI job gates on (exit 1).
        let command = try await APILayerExecutable.run(["templates", "diff", shipped.path + "/tracker", next.path + "/tracker", "--json"])
        #expect(command.status == 1, "\(command.error)")
        #expect(command.output.contains(#""breaking":4"#), "\(command.output)")

        // Strict stays the default: the same answer fails a scope that did not opt in.
        let strict = APIScope(name: "tracker-strict")
        strict.configure { $0.session = engine.makeSession() }
        #expect(strict.configuration.validationMode == .strict)
        await TrackerAPI.withAPI(strict) {
            TrackerAPI.prepare(
                baseURL: server.trackerBaseURL(realm: realm), tokenURL: server.tokenURL(realm: realm),
                clientID: DemoServer.clientCredentials.id, clientSecret: DemoServer.clientCredentials.secret,
                templates: TemplateStore(directory: shipped.appendingPathComponent("tracker")))
            let refused = await #expect(throws: APIError.self) { try await TrackerAPI.issue(5, owner: Self.repo.owner, repo: Self.repo.repo).run() }
            #expect(refused?.stageName == "validation")
        }
        await APIService(scopes: [strict]).stop()
    }

    /// The rules the template gives the key at `pointer`.
    private func rules(_ template: JSONValue, _ pointer: String) -> [String: JSONValue] {
        var tokens = JSONPointer(pointer)!.tokens
        let key = tokens.removeLast()
        guard case let .object(parent)? = JSONPointer(tokens: tokens).resolve(in: template),
            case let .object(rules)? = parent[key + "-Rules"]
        else { return [:] }
        return rules
    }
}
