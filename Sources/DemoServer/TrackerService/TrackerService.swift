import Foundation
import NIOConcurrencyHelpers

/// The state of TrackerService, a small REST issue tracker, in one realm of DemoServer: its
/// repositories and their issues, and the raw request paths it received.
///
/// Each realm starts with the repository `octo-org/hello-world` holding 45 issues (every third
/// closed, every fifth without a body, labels on some), and the repository `octo-org/a/b` —
/// a name with a slash, reachable only as `repos/octo-org/a%2Fb/…`.
public final class TrackerService: Sendable {
    /// The owner and name of the seeded repository.
    public static let seededRepository = (owner: "octo-org", repo: "hello-world")
    /// How many issues the seeded repository starts with.
    public static let seededIssueCount = 45

    /// Which version of its answers the service gives.
    public enum AnswerVersion: String, Sendable, CaseIterable {
        /// The answers the shipped templates describe (the default): an issue's `body` and
        /// `closed_at` are `null` when it has none.
        case current
        /// A later version of the API: an issue's `body` and `closed_at` are left out when it
        /// has none. What a client meets when an API changes under it, for
        /// `apilayer templates diff` and report-only validation.
        case next
    }

    private struct State {
        var answerVersion = AnswerVersion.current
        var repositories: [String: [TrackerIssueRecord]] = [:]
        var nextID = 5_000
        var paths: [String] = []
    }

    private let state = NIOLockedValueBox(State())

    init() {
        let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
        let author = TrackerUserRecord(login: "octocat", id: 1, name: nil)
        var issues: [TrackerIssueRecord] = []
        for number in 1...Self.seededIssueCount {
            let closed = number.isMultiple(of: 3)
            let created = start.addingTimeInterval(Double(number) * 3_600)
            issues.append(
                TrackerIssueRecord(
                    id: 1_000 + number, number: number, title: "Issue #\(number)",
                    body: number.isMultiple(of: 5) ? nil : "What happens in issue \(number).",
                    state: closed ? "closed" : "open",
                    labels: number.isMultiple(of: 4) ? [TrackerLabelRecord(name: "bug", color: "d73a4a")] : [],
                    user: author, comments: number % 7, createdAt: created,
                    closedAt: closed ? created.addingTimeInterval(86_400) : nil))
        }
        state.withLockedValue { state in
            state.repositories[Self.key(Self.seededRepository.owner, Self.seededRepository.repo)] = issues
            state.repositories[Self.key("octo-org", "a/b")] = []
        }
    }

    static func key(_ owner: String, _ repo: String) -> String { owner + "\u{0}" + repo }

    /// Which version of its answers the realm gives (`.current` unless set).
    public var answerVersion: AnswerVersion {
        get { state.withLockedValue { $0.answerVersion } }
        set { state.withLockedValue { $0.answerVersion = newValue } }
    }

    /// The raw paths (as sent, percent-encoding kept) of the requests this realm received.
    public var receivedPaths: [String] { state.withLockedValue { $0.paths } }

    func record(path: String) {
        state.withLockedValue { state in
            state.paths.append(path)
            if state.paths.count > 10_000 { state.paths.removeFirst(state.paths.count - 10_000) }
        }
    }

    /// The issues of a repository in `state` (`open`, `closed`, `all`), newest first; nil when
    /// the repository does not exist.
    func issues(owner: String, repo: String, state filter: String) -> [TrackerIssueRecord]? {
        state.withLockedValue { state in
            state.repositories[Self.key(owner, repo)].map { issues in
                issues.filter { filter == "all" || $0.state == filter }.sorted { $0.number > $1.number }
            }
        }
    }

    func issue(owner: String, repo: String, number: Int) -> TrackerIssueRecord? {
        state.withLockedValue { $0.repositories[Self.key(owner, repo)]?.first { $0.number == number } }
    }

    func create(owner: String, repo: String, title: String, body: String?, labels: [String]) -> TrackerIssueRecord? {
        state.withLockedValue { state in
            guard var issues = state.repositories[Self.key(owner, repo)] else { return nil }
            state.nextID += 1
            let number = (issues.map(\.number).max() ?? 0) + 1
            let issue = TrackerIssueRecord(
                id: state.nextID, number: number, title: title, body: body, state: "open",
                labels: labels.map { TrackerLabelRecord(name: $0, color: "ededed") },
                user: TrackerUserRecord(login: "octocat", id: 1, name: nil), comments: 0,
                createdAt: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)), closedAt: nil)
            issues.append(issue)
            state.repositories[Self.key(owner, repo)] = issues
            return issue
        }
    }

    func update(owner: String, repo: String, number: Int, state newState: String?, title: String?) -> TrackerIssueRecord? {
        state.withLockedValue { state in
            guard var issues = state.repositories[Self.key(owner, repo)],
                let index = issues.firstIndex(where: { $0.number == number })
            else { return nil }
            if let title { issues[index].title = title }
            if let newState, newState != issues[index].state {
                issues[index].state = newState
                issues[index].closedAt = newState == "closed" ? Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)) : nil
            }
            state.repositories[Self.key(owner, repo)] = issues
            return issues[index]
        }
    }

    func delete(owner: String, repo: String, number: Int) -> Bool {
        state.withLockedValue { state in
            guard var issues = state.repositories[Self.key(owner, repo)],
                let index = issues.firstIndex(where: { $0.number == number })
            else { return false }
            issues.remove(at: index)
            state.repositories[Self.key(owner, repo)] = issues
            return true
        }
    }
}

/// The TrackerService state of a DemoServer's realms.
typealias TrackerServices = PerRealm<TrackerService>
