import APILayer
import DemoServer
import Foundation
import NetOps
import SampleAPI
import SampleTemplates
import Templater

/// The section with a second API: TrackerAPI (REST) on another origin, beside SampleAPI.
extension DemoScenario {
    func twoAPIsSideBySide() async {
        report.section("Two APIs side by side: SampleAPI and the REST TrackerAPI, each with its own token")
        let realm = "demo"
        let trackerBase = trackerServer.trackerBaseURL(realm: realm)
        let scope = APIScope(name: "tracker", configuration: .init(session: session, logger: APIManager.logger))
        await TrackerAPI.withAPI(scope) {
            let tracker = TrackerAPI.prepare(
                baseURL: trackerBase, tokenURL: trackerServer.tokenURL(realm: realm),
                clientID: DemoServer.clientCredentials.id, clientSecret: DemoServer.clientCredentials.secret,
                templates: TemplateStore(directory: SampleTemplates.trackerDirectory))
            report.say("  SampleAPI  at \(server.sampleAPIBaseURL(realm: self.realm).absoluteString) (token in ?access_token)")
            report.say("  TrackerAPI at \(trackerBase.absoluteString) (Bearer token, client-credentials grant)")
            do {
                let owner = TrackerService.seededRepository.owner
                let repo = TrackerService.seededRepository.repo
                async let users = APIManager.users([1])
                async let issues = TrackerAPI.issues(owner: owner, repo: repo, perPage: 5).run()
                let (user, page) = try await (users, issues)
                report.say(
                    "  \(user.first?.fullName ?? "?") from SampleAPI; \(page.count) open issues of \(owner)/\(repo) from TrackerAPI, newest #\(page.first?.number ?? 0): \"\(page.first?.title ?? "")\""
                )
                report.check(
                    user.first?.id == 1 && page.count == 5,
                    "one call to each API at once, each validated against its own templates (issues/list-for-repo.json in a subfolder)")

                let creation = TrackerAPI.createIssue(owner: owner, repo: repo, title: "Token refresh races a logout", labels: ["bug"])
                let created = try await creation.run()
                let deletion = TrackerAPI.deleteIssue(created.number, owner: owner, repo: repo)
                _ = try await deletion.run()
                report.check(
                    creation.statusCode == 201 && deletion.statusCode == 204,
                    "POST repos/\(owner)/\(repo)/issues → 201 (#\(created.number)), DELETE repos/\(owner)/\(repo)/issues/\(created.number) → 204")

                let refused = TrackerAPI.createIssue(owner: owner, repo: repo, title: "")
                _ = try? await refused.run()
                if case let .failure(error)? = refused.result {
                    report.say("  \(error)")
                    report.check(
                        (error.serverError as? TrackerError)?.errors?.first?.field == "title",
                        "a 422 decoded into the API's error model (TrackerError)")
                }
            } catch {
                failed("two APIs", error)
            }
            guard let sampleToken = coordinator.token?.accessToken, let trackerToken = tracker.token?.accessToken else {
                report.check(false, "both APIs hold a token")
                return
            }
            let sampleLeaked = trackerServer.credentialsSeen().contains { $0.carries(sampleToken) }
            let trackerLeaked = server.credentialsSeen().contains { $0.carries(trackerToken) }
            report.check(
                !sampleLeaked && !trackerLeaked,
                "neither token reached the other's server (\(trackerServer.baseURL.host ?? "") never saw SampleAPI's, \(server.baseURL.host ?? "") never TrackerAPI's)"
            )
        }
    }
}
