import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension DemoRoutes {
    /// TrackerService, a REST issue tracker in the shape of GitHub's issues API, per realm,
    /// under `/rest/{realm}/`. Its bearer tokens come from the realm's OAuth endpoint
    /// (`/realm/{realm}/oauth/token`, the same authority and control route as the other realm
    /// routes), only in the `Authorization` header:
    /// - `GET user` — the token's user;
    /// - `GET repos/{owner}/{repo}/issues?state=&page=&per_page=` — a page, newest first, with a
    ///   `Link` header (`next`, `last`);
    /// - `POST repos/{owner}/{repo}/issues` — JSON `{"title", "body"?, "labels"?}`: 201 with the
    ///   issue and a `Location`, 422 without a title, 400 for a body that is not JSON;
    /// - `GET | PATCH | DELETE repos/{owner}/{repo}/issues/{number}` — the issue, changed
    ///   (`{"state"?, "title"?}`), or deleted (204, no body).
    /// Errors are JSON: `{"message", "documentation_url"}` (401 `Bad credentials` without a
    /// `WWW-Authenticate` header, 404 `Not Found`). Path segments are matched as sent and then
    /// percent-decoded, so an owner or repository name may hold a `/` sent as `%2F`.
    static func addTrackerRoutes(to router: Router<BasicRequestContext>, services: TrackerServices, realms: TokenRealms) {
        let group = router.group("rest/{realm}")

        group.get("user") { request, context in
            try await tracker(request, context, services, realms) { _, _ in
                json(#"{"login":"octocat","id":1,"name":"The Octocat"}"#)
            }
        }

        group.get("repos/{owner}/{repo}/issues") { request, context in
            try await tracker(request, context, services, realms) { service, path in
                let query = request.uri.queryParameters
                let filter = query["state"].map(String.init) ?? "open"
                guard ["open", "closed", "all"].contains(filter) else {
                    return json(TrackerJSON.error("Validation Failed", fields: [("Issue", "state", "invalid")]), status: .unprocessableContent)
                }
                guard let all = service.issues(owner: path.owner, repo: path.repo, state: filter) else { return notFound() }
                let perPage = min(max(query.get("per_page", as: Int.self) ?? 30, 1), 100)
                let page = max(query.get("page", as: Int.self) ?? 1, 1)
                let last = max(1, (all.count + perPage - 1) / perPage)
                let slice = all.dropFirst((page - 1) * perPage).prefix(perPage)
                var headers: HTTPFields = [:]
                if page < last, let host = request.head.authority {
                    let base = "http://\(host)\(request.uri.path)?state=\(filter)&per_page=\(perPage)"
                    headers[HTTPField.Name("Link")!] = "<\(base)&page=\(page + 1)>; rel=\"next\", <\(base)&page=\(last)>; rel=\"last\""
                }
                return json(try TrackerJSON.encode(Array(slice), omittingNulls: service.answerVersion == .next), headers: headers)
            }
        }

        group.post("repos/{owner}/{repo}/issues") { request, context in
            try await tracker(request, context, services, realms) { service, path in
                struct NewIssue: Decodable {
                    var title: String?
                    var body: String?
                    var labels: [String]?
                }
                let body = try await request.body.collect(upTo: 1 << 20)
                guard let new = try? JSONDecoder().decode(NewIssue.self, from: Data(buffer: body)) else {
                    return json(TrackerJSON.error("Problems parsing JSON"), status: .badRequest)
                }
                guard let title = new.title, !title.trimmingCharacters(in: .whitespaces).isEmpty else {
                    return json(
                        TrackerJSON.error("Validation Failed", fields: [("Issue", "title", "missing_field")]),
                        status: .unprocessableContent)
                }
                guard
                    let issue = service.create(
                        owner: path.owner, repo: path.repo, title: title, body: new.body,
                        labels: new.labels ?? [])
                else { return notFound() }
                return json(
                    try TrackerJSON.encode(issue, omittingNulls: service.answerVersion == .next), status: .created,
                    headers: [.location: "\(request.uri.path)/\(issue.number)"])
            }
        }

        group.get("repos/{owner}/{repo}/issues/{number}") { request, context in
            try await tracker(request, context, services, realms) { service, path in
                guard let number = path.number, let issue = service.issue(owner: path.owner, repo: path.repo, number: number) else {
                    return notFound()
                }
                return json(try TrackerJSON.encode(issue, omittingNulls: service.answerVersion == .next))
            }
        }

        group.patch("repos/{owner}/{repo}/issues/{number}") { request, context in
            try await tracker(request, context, services, realms) { service, path in
                struct Change: Decodable {
                    var state: String?
                    var title: String?
                }
                let body = try await request.body.collect(upTo: 1 << 20)
                guard let change = try? JSONDecoder().decode(Change.self, from: Data(buffer: body)) else {
                    return json(TrackerJSON.error("Problems parsing JSON"), status: .badRequest)
                }
                if let state = change.state, !["open", "closed"].contains(state) {
                    return json(TrackerJSON.error("Validation Failed", fields: [("Issue", "state", "invalid")]), status: .unprocessableContent)
                }
                guard let number = path.number,
                    let issue = service.update(owner: path.owner, repo: path.repo, number: number, state: change.state, title: change.title)
                else { return notFound() }
                return json(try TrackerJSON.encode(issue, omittingNulls: service.answerVersion == .next))
            }
        }

        group.delete("repos/{owner}/{repo}/issues/{number}") { request, context in
            try await tracker(request, context, services, realms) { service, path in
                guard let number = path.number, service.delete(owner: path.owner, repo: path.repo, number: number) else {
                    return notFound()
                }
                return Response(status: .noContent)
            }
        }
    }

    /// A request's decoded path parameters.
    struct TrackerPath {
        var owner: String
        var repo: String
        var number: Int?
    }

    /// Records the raw path, checks the bearer token, then answers with `body`.
    private static func tracker(
        _ request: Request, _ context: BasicRequestContext, _ services: TrackerServices, _ realms: TokenRealms,
        _ body: (TrackerService, TrackerPath) async throws -> Response
    ) async throws -> Response {
        let realm = try context.parameters.require("realm")
        let service = services[realm]
        service.record(path: request.uri.path)
        var token: String?
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") {
            token = String(header.dropFirst("bearer ".count))
        }
        guard realms[realm].admit(token) else {
            return json(TrackerJSON.error("Bad credentials"), status: .unauthorized)
        }
        func decoded(_ name: String) -> String {
            let raw: String = context.parameters.get(name).map { String($0) } ?? ""
            return raw.removingPercentEncoding ?? raw
        }
        let path = TrackerPath(owner: decoded("owner"), repo: decoded("repo"), number: Int(decoded("number")))
        return try await body(service, path)
    }

    private static func notFound() -> Response {
        json(TrackerJSON.error("Not Found"), status: .notFound)
    }
}
