import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one transfer's redirects may do, handed to the engine with the transfer: whether they are
/// followed at all, and what of the request is secret and stays behind when a redirect leaves the
/// request's origin.
package struct RedirectRules: Sendable {
    /// Whether 3xx answers with a `Location` are followed (the token request follows none).
    package var follows: Bool
    /// What is secret besides `RedirectPolicy.credentialHeaders` and `credentialQueryItems`:
    /// every header and query parameter the operation's redaction hides is dropped on a redirect
    /// to another origin, as its logs hide them.
    package var redaction: Redaction
    /// The cookie jar of the operation's API: it stores the `Set-Cookie` of each hop answered by
    /// `cookieHost` and gives each hop its `Cookie`; without one, no cookie is stored and a
    /// caller's `Cookie` header stays on its origin.
    package var cookies: CookieJar?
    /// The host (lower case) whose answers may set cookies: the one the operation asked. A host
    /// a redirect leads to sets none — on a shared suffix (`evil.herokuapp.com`) it could set one
    /// for the API's own host (`Domain=herokuapp.com`).
    package var cookieHost: String?

    /// Rules that follow redirects and strip what `redaction` names; cookies are stored only
    /// from answers of `cookieHost`.
    package init(follows: Bool = true, redaction: Redaction = .standard, cookies: CookieJar? = nil, cookieHost: String? = nil) {
        self.follows = follows
        self.redaction = redaction
        self.cookies = cookies
        self.cookieHost = cookieHost?.lowercased()
    }

    /// Stores the `Set-Cookie` fields among `fields`, answered for `url`, in the jar, when `url`'s
    /// host is the one the operation asked.
    package func storeCookies(_ fields: [(name: String, value: String)], from url: URL) {
        guard let cookies, let host = url.host?.lowercased(), host == cookieHost else { return }
        cookies.store(fields, from: url)
    }

    /// Stores the `Set-Cookie` fields of a response head, as `storeCookies(_:from:)` does.
    package func storeCookies(of head: ResponseHead) {
        guard cookies != nil, head.url.host?.lowercased() == cookieHost else { return }
        storeCookies(head.fields(named: "Set-Cookie").map { (name: "Set-Cookie", value: $0) }, from: head.url)
    }

    /// The rules of a transfer that says nothing: follow, strip the standard credentials.
    package static let standard = RedirectRules()
}

/// How both engines follow a redirect, so that they agree (RFC 9110 §15.4):
/// - 303 (except after HEAD), and 301 or 302 after a POST, become a GET without a body; every
///   other redirect keeps the method and the body;
/// - a redirect that leaves the origin (scheme, host and port) keeps only the header fields a
///   request needs anywhere (`crossOriginHeaders`: `Accept…`, `User-Agent`, trace context,
///   `Range`…) and drops every other — a credential under a name nobody listed as secret
///   included — and every secret query parameter (`RedirectRules`);
/// - a redirect from https to http is never followed, nor one that would send a body to another
///   origin, nor any when the rules say so: the 3xx answer is then the response, and the operation
///   fails with its status.
package enum RedirectPolicy {
    /// Header fields dropped whenever a redirect leaves the origin.
    package static let credentialHeaders = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// The header fields (lower case) a redirect to another origin keeps: what any server may
    /// see and what asks for the same resource (content negotiation, the client's name, trace
    /// context, a range, cache directives). Every other field stays on its origin: an API's key
    /// under a name of its own (`Ocp-Apim-Subscription-Key`) as much as a tenant's.
    package static let crossOriginHeaders: Set<String> = [
        "accept", "accept-charset", "accept-encoding", "accept-language", "user-agent", "content-type", "traceparent", "tracestate",
        "b3", "x-b3-traceid", "x-b3-spanid", "x-b3-parentspanid", "x-b3-sampled", "x-b3-flags", "range", "if-range",
        "if-none-match", "if-modified-since", "cache-control", "pragma",
    ]

    /// Query parameters dropped whenever a redirect leaves the origin (a server that copies the
    /// caller's `access_token` into its `Location` would otherwise hand it to another host).
    package static let credentialQueryItems: Set<String> = ["access_token"]

    /// The statuses that redirect.
    package static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// What to do with a redirect.
    package enum Step: Equatable {
        /// Send this request next (its body is the one sent before when `keepsBody`).
        case follow(URLRequest, keepsBody: Bool)
        /// Do not follow: the 3xx answer is the response.
        case deliver
    }

    /// The step after `sent` was answered with `status` and a `Location` that resolves to
    /// `target`.
    ///
    /// - Parameters:
    ///   - sent: The request of the hop that was answered (credentials and all).
    ///   - hasBody: Whether that request sent a body.
    ///   - responseFields: The 3xx answer's header fields (their `Set-Cookie`s go to the jar).
    package static func step(
        after sent: URLRequest, status: Int, target: URL, hasBody: Bool, rules: RedirectRules,
        responseFields: [(name: String, value: String)] = []
    ) -> Step {
        guard rules.follows, redirectStatuses.contains(status), let origin = sent.url else { return .deliver }
        let fromScheme = origin.scheme?.lowercased()
        let toScheme = target.scheme?.lowercased()
        guard toScheme == "http" || toScheme == "https" else { return .deliver }
        // Never from https down to http: whatever the request carries would travel in clear.
        if fromScheme == "https", toScheme == "http" { return .deliver }
        let method = sent.httpMethod?.uppercased() ?? "GET"
        let becomesGET = (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST")
        let crossOrigin = !sameOrigin(origin, target)
        let keepsBody = !becomesGET && hasBody
        // A body (a form with a refresh token, a login) goes to the origin it was meant for only.
        if keepsBody, crossOrigin { return .deliver }

        var next = sent
        next.url = target
        if becomesGET {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.httpBodyStream = nil
            for name in ["Content-Type", "Content-Length", "Transfer-Encoding"] { next.setValue(nil, forHTTPHeaderField: name) }
        }
        if crossOrigin { next = stripped(next, rules: rules) }
        if let jar = rules.cookies {
            rules.storeCookies(responseFields, from: origin)
            next.setValue(jar.cookieHeader(for: target), forHTTPHeaderField: "Cookie")
        }
        return .follow(next, keepsBody: keepsBody)
    }

    /// `request` as it may go to another origin: only the `crossOriginHeaders` it has (none the
    /// redaction calls secret), without its secret query parameters.
    package static func stripped(_ request: URLRequest, rules: RedirectRules) -> URLRequest {
        var stripped = request
        for name in credentialHeaders { stripped.setValue(nil, forHTTPHeaderField: name) }
        if let fields = request.allHTTPHeaderFields {
            for name in fields.keys where !crossOriginHeaders.contains(name.lowercased()) || rules.redaction.isSecret(header: name) {
                stripped.setValue(nil, forHTTPHeaderField: name)
            }
        }
        guard let target = request.url, let components = URLComponents(url: target, resolvingAgainstBaseURL: false),
            let items = components.queryItems
        else { return stripped }
        func isSecret(_ item: URLQueryItem) -> Bool {
            credentialQueryItems.contains(item.name.lowercased()) || rules.redaction.isSecret(parameter: item.name)
        }
        guard items.contains(where: isSecret) else { return stripped }
        var kept = components
        let remaining = items.filter { !isSecret($0) }
        kept.queryItems = remaining.isEmpty ? nil : remaining
        stripped.url = kept.url ?? target
        return stripped
    }

    /// The URL a `Location` value names, resolved against the URL that was requested.
    package static func target(of location: String, from url: URL) -> URL? {
        URL(string: String(location.trimmingHTTPWhitespace()), relativeTo: url)?.absoluteURL
    }

    /// Whether two URLs have the same `Origin` (false when either has none: a hop to a URL
    /// without one is treated as leaving the origin).
    package static func sameOrigin(_ first: URL, _ second: URL) -> Bool {
        Origin.same(first, second)
    }
}
