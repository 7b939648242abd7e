import APILayer
import Foundation
import NetOps

/// TrackerService's methods as typed operations, written once each (step 5 of the recipe).
extension TrackerAPI {
    /// The user the token belongs to.
    public static func currentUser() -> APIOperation<TrackerUser> {
        APIManager.operation(TrackerAPI.currentUser, as: TrackerUser.self)
    }

    /// A page of `owner/repo`'s issues in `state` (`open`, `closed`, `all`), newest first.
    public static func issues(owner: String, repo: String, state: String = "open", page: Int = 1, perPage: Int = 30)
        -> APIOperation<[Issue]>
    {
        APIManager.operation(
            TrackerAPI.listIssues,
            properties: ["owner": owner, "repo": repo, "state": state, "page": page, "per_page": perPage],
            as: [Issue].self)
    }

    /// Issue `number` of `owner/repo`.
    public static func issue(_ number: Int, owner: String, repo: String) -> APIOperation<Issue> {
        APIManager.operation(TrackerAPI.getIssue, properties: ["owner": owner, "repo": repo, "number": number], as: Issue.self)
    }

    /// Opens an issue in `owner/repo`; answers the created issue.
    public static func createIssue(owner: String, repo: String, title: String, body: String? = nil, labels: [String] = [])
        -> APIOperation<Issue>
    {
        var properties: Parameters = ["owner": owner, "repo": repo, "title": title]
        if let body { properties["body"] = body }
        if !labels.isEmpty { properties["labels"] = labels }
        return APIManager.operation(TrackerAPI.createIssue, properties: properties, as: Issue.self)
    }

    /// Changes issue `number`'s `state` and/or `title`.
    public static func updateIssue(_ number: Int, owner: String, repo: String, state: String? = nil, title: String? = nil)
        -> APIOperation<Issue>
    {
        var properties: Parameters = ["owner": owner, "repo": repo, "number": number]
        if let state { properties["state"] = state }
        if let title { properties["title"] = title }
        return APIManager.operation(TrackerAPI.updateIssue, properties: properties, as: Issue.self)
    }

    /// Deletes issue `number`.
    public static func deleteIssue(_ number: Int, owner: String, repo: String) -> APIOperation<NoContent> {
        APIManager.operation(
            TrackerAPI.deleteIssue, properties: ["owner": owner, "repo": repo, "number": number],
            as: NoContent.self)
    }
}
