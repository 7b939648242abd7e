/// A page of issues shaped as GitHub's REST API sends them (`GET /repos/{owner}/{repo}/issues`):
/// every field of an issue, its user, labels, reactions and a body of a few paragraphs, about
/// 3.6 KB an issue. The HTTP cache's tests and `apilayer bench http` read it from DemoServer
/// (`/cacheable/{key}?items=N`) and from nginx.
public enum DemoIssuePage {
    /// The page as JSON text: `{"key": key, "version": version, "items": [count issues]}`.
    public static func json(key: String, version: Int, count: Int) -> String {
        let items = (0..<count).map { issue(number: 1000 + $0, id: $0 + 1, version: version) }
        return #"{"key":"\#(key)","version":\#(version),"items":[\#(items.joined(separator: ","))]}"#
    }

    private static let body =
        "Steps to reproduce:\\n\\n1. Start the service with the default configuration.\\n2. Call the endpoint twice within a second.\\n"
        + "3. Watch the second answer arrive before the first.\\n\\nExpected: the answers arrive in the order the calls were made.\\n"
        + "Actual: the second one overtakes the first when the connection pool holds two idle connections.\\n\\n"
        + "Environment: Ubuntu 24.04, Swift 6.2, two cores. The service runs beside Hummingbird and calls three APIs.\\n\\n"
        + "This has been seen in production twice this week, both times under a burst of identical reads."

    private static func issue(number: Int, id: Int, version: Int) -> String {
        let repository = "https://api.github.com/repos/octo-org/hello-world"
        let user =
            #"{"login":"octocat","id":583231,"node_id":"MDQ6VXNlcjU4MzIzMQ==","avatar_url":"https://avatars.githubusercontent.com/u/583231?v=4","#
            + #""gravatar_id":"","url":"https://api.github.com/users/octocat","html_url":"https://github.com/octocat","#
            + #""followers_url":"https://api.github.com/users/octocat/followers","following_url":"https://api.github.com/users/octocat/following{/other_user}","#
            + #""gists_url":"https://api.github.com/users/octocat/gists{/gist_id}","starred_url":"https://api.github.com/users/octocat/starred{/owner}{/repo}","#
            + #""subscriptions_url":"https://api.github.com/users/octocat/subscriptions","organizations_url":"https://api.github.com/users/octocat/orgs","#
            + #""repos_url":"https://api.github.com/users/octocat/repos","events_url":"https://api.github.com/users/octocat/events{/privacy}","#
            + #""received_events_url":"https://api.github.com/users/octocat/received_events","type":"User","user_view_type":"public","site_admin":false}"#
        let label =
            #"{"id":208045946,"node_id":"MDU6TGFiZWwyMDgwNDU5NDY=","url":"\#(repository)/labels/bug","name":"bug","#
            + #""color":"d73a4a","default":true,"description":"Something isn't working"}"#
        let reactions =
            #"{"url":"\#(repository)/issues/\#(number)/reactions","total_count":3,"+1":2,"-1":0,"laugh":0,"hooray":0,"#
            + #""confused":0,"heart":1,"rocket":0,"eyes":0}"#
        return #"{"url":"\#(repository)/issues/\#(number)","repository_url":"\#(repository)","#
            + #""labels_url":"\#(repository)/issues/\#(number)/labels{/name}","comments_url":"\#(repository)/issues/\#(number)/comments","#
            + #""events_url":"\#(repository)/issues/\#(number)/events","html_url":"https://github.com/octo-org/hello-world/issues/\#(number)","#
            + #""id":\#(id),"node_id":"I_kwDOABCD\#(number)","number":\#(number),"title":"Issue \#(id) of version \#(version)","#
            + #""user":\#(user),"labels":[\#(label)],"state":"open","locked":false,"assignee":null,"assignees":[],"milestone":null,"#
            + #""comments":\#(id % 7),"created_at":"2026-11-20T09:1\#(id % 10):00Z","updated_at":"2026-11-26T17:4\#(id % 10):00Z","#
            + #""closed_at":null,"author_association":"MEMBER","type":null,"active_lock_reason":null,"sub_issues_summary":{"total":0,"#
            + #""completed":0,"percent_completed":0},"body":"\#(body)","closed_by":null,"reactions":\#(reactions),"#
            + #""timeline_url":"\#(repository)/issues/\#(number)/timeline","performed_via_github_app":null,"state_reason":null}"#
    }
}
