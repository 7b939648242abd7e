import Foundation
import Hummingbird

extension DemoRoutes {
    /// `/bench/issues` (a page of 30 REST-style issues, about 380 KB: nested users, labels, URLs,
    /// nulls, long bodies) and `/bench/issue` (one small issue, about 1 KB): the same bytes on
    /// every request, for `apilayer bench pipeline`.
    static func addIssuePageRoutes(to router: Router<BasicRequestContext>) {
        let page = ByteBuffer(string: IssuePage.page(count: 30))
        let single = ByteBuffer(string: IssuePage.issue(number: 1, bodyLength: 60, shortUser: true))
        router.get("bench/issues") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: ResponseBody(byteBuffer: page))
        }
        router.get("bench/issue") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: ResponseBody(byteBuffer: single))
        }
    }
}

/// Deterministic issue JSON shaped like a public REST API's (GitHub's issues): what a service
/// typically maps only eight fields of.
enum IssuePage {
    /// A JSON array of `count` issues, each with a long body.
    static func page(count: Int) -> String {
        "[" + (1...count).map { issue(number: $0, bodyLength: 10_200) }.joined(separator: ",") + "]"
    }

    /// One issue whose `body` is `bodyLength` characters.
    static func issue(number: Int, bodyLength: Int, shortUser: Bool = false) -> String {
        let api = "https://api.example.com/repos/octo-org/hello-world"
        let words = ["the", "request", "fails", "when", "the", "token", "expires", "during", "an", "upload", "of", "a", "large", "file"]
        var body = ""
        var word = number
        while body.utf8.count < bodyLength {
            body += words[word % words.count] + (word % 11 == 0 ? ".\\n" : " ")
            word += 7
        }
        let labels = (0..<(number % 3 + 1)).map { label in
            #"{"id":\#(1000 + label),"node_id":"LA_kwDO\#(label)","url":"\#(api)/labels/l\#(label)","name":"label-\#(label)","color":"f29513","default":\#(label == 0),"description":"Something \#(label)"}"#
        }.joined(separator: ",")
        return #"""
            {"url":"\#(api)/issues/\#(number)","repository_url":"\#(api)","labels_url":"\#(api)/issues/\#(number)/labels{/name}","comments_url":"\#(api)/issues/\#(number)/comments","events_url":"\#(api)/issues/\#(number)/events","html_url":"https://example.com/octo-org/hello-world/issues/\#(number)","id":\#(9_000_000 + number),"node_id":"I_kwDOA\#(number)","number":\#(number),"title":"Issue \#(number): uploads fail after a token refresh","user":\#(shortUser ? #"{"login":"octocat","id":500,"type":"User"}"# : user(login: "octocat\(number % 5)", id: 500 + number % 5)),"labels":[\#(labels)],"state":"\#(number % 4 == 0 ? "closed" : "open")","locked":false,"assignee":\#(number % 2 == 0 && !shortUser ? user(login: "hubot", id: 7) : "null"),"assignees":[],"milestone":null,"comments":\#(number * 3 % 17),"created_at":"2025-10-\#(String(format: "%02d", number % 28 + 1))T10:00:00Z","updated_at":"2025-11-01T12:30:00Z","closed_at":null,"author_association":"MEMBER","active_lock_reason":null,"body":"\#(body)","reactions":{"url":"\#(api)/issues/\#(number)/reactions","total_count":\#(number % 9),"+1":\#(number % 4),"-1":0,"laugh":0,"hooray":0,"confused":0,"heart":1,"rocket":0,"eyes":0},"timeline_url":"\#(api)/issues/\#(number)/timeline","state_reason":null}
            """#
    }

    private static func user(login: String, id: Int) -> String {
        let base = "https://api.example.com/users/\(login)"
        return
            #"{"login":"\#(login)","id":\#(id),"node_id":"MDQ6VXNlcj\#(id)","avatar_url":"https://avatars.example.com/u/\#(id)?v=4","gravatar_id":"","url":"\#(base)","html_url":"https://example.com/\#(login)","followers_url":"\#(base)/followers","following_url":"\#(base)/following{/other_user}","gists_url":"\#(base)/gists{/gist_id}","starred_url":"\#(base)/starred{/owner}{/repo}","subscriptions_url":"\#(base)/subscriptions","organizations_url":"\#(base)/orgs","repos_url":"\#(base)/repos","events_url":"\#(base)/events{/privacy}","received_events_url":"\#(base)/received_events","type":"User","site_admin":false}"#
    }
}
