import Foundation

/// An in-memory cookie store for the operations of one API, as RFC 6265 says a user agent keeps
/// one: `Set-Cookie` answers are stored with their `Domain`, `Path`, `Secure` and expiry, and a
/// request gets the `Cookie` header of the cookies whose domain, path and scheme match it.
///
/// NetOps sends no cookie unless an operation is given a jar (`BaseOperation.cookieJar`; an API
/// scope gives its own when its configuration sets `usesCookies`): the URLSession engine's
/// process-wide, persisted `HTTPCookieStorage` is never used, and the NIO engine keeps none. One
/// jar per API keeps a cookie that one API sets away from every other API.
///
/// ```swift
/// let jar = CookieJar()
/// let login = DTO.post(loginURL, parameters: form)
/// login.cookieJar = jar
/// try await login.run()                  // its Set-Cookie is stored
/// let page = DTO.get(pageURL)
/// page.cookieJar = jar                   // sends the session cookie, if domain and path match
/// ```
///
/// Limits keep a hostile server from growing the jar: at most `maximumCookies` cookies (the
/// oldest go first) and 4 096 bytes per cookie (a longer one is ignored). Cookies are never
/// written to disk, and a `Domain` that is an IP address other than the request's, or has no dot,
/// is refused. `__Secure-` cookies must be `Secure` and come over https; `__Host-` cookies also
/// have `Path=/` and no `Domain` (RFC 6265bis §4.1.3).
///
/// An operation stores only the cookies its own host answers with: a host a redirect leads to
/// sets none, so a neighbour on a shared suffix (`evil.herokuapp.com`, reached through an open
/// redirect) cannot plant `Domain=herokuapp.com` for the API. There is no public-suffix list:
/// only the API's own hosts set cookies, and they choose their domains. A jar holds one set of
/// cookies for every caller of the operations given it (an API scope's callers share its jar):
/// per-caller sessions need a jar per caller.
public final class CookieJar: Sendable {
    /// The most cookies one jar keeps.
    public static let maximumCookies = 300
    /// The longest `name=value` a cookie may have, in bytes.
    public static let maximumCookieLength = 4096

    private let cookies = Locked<[StoredCookie]>([])

    /// An empty jar.
    public init() {}

    /// The number of cookies kept now (expired ones included until the next request drops them).
    public var count: Int { cookies.withLock { $0.count } }

    /// Removes every cookie.
    public func removeAll() {
        cookies.withLock { $0.removeAll() }
    }

    /// The `Cookie` header value for a request to `url`, or nil when no cookie matches.
    public func cookieHeader(for url: URL) -> String? {
        guard let host = url.host?.lowercased() else { return nil }
        let secure = url.scheme?.lowercased() == "https"
        let path = url.path.isEmpty ? "/" : url.path
        let now = Date()
        let matching = cookies.withLock { stored -> [StoredCookie] in
            stored.removeAll { $0.expires.map { $0 <= now } ?? false }
            return stored.filter { $0.matches(host: host, path: path, secure: secure) }
        }
        guard !matching.isEmpty else { return nil }
        // Longer paths first, then older cookies first (RFC 6265 §5.4).
        let ordered = matching.sorted { ($0.path.count, $1.created) > ($1.path.count, $0.created) }
        return ordered.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Stores the `Set-Cookie` fields among `fields`, answered for a request to `url`.
    public func store(_ fields: [(name: String, value: String)], from url: URL) {
        let values = fields.filter { $0.name.caseInsensitiveEquals("Set-Cookie") }.flatMap { Self.split($0.value) }
        guard !values.isEmpty, let host = url.host?.lowercased() else { return }
        let now = Date()
        let parsed = values.compactMap { StoredCookie(setCookie: $0, host: host, url: url, now: now) }
        guard !parsed.isEmpty else { return }
        cookies.withLock { stored in
            for cookie in parsed {
                let previous = stored.firstIndex { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
                var cookie = cookie
                if let previous {
                    cookie.created = stored[previous].created
                    stored.remove(at: previous)
                }
                if let expires = cookie.expires, expires <= now { continue }
                stored.append(cookie)
            }
            if stored.count > Self.maximumCookies {
                stored.sort { $0.created < $1.created }
                stored.removeFirst(stored.count - Self.maximumCookies)
            }
        }
    }

    /// Stores the `Set-Cookie` fields of a response head.
    package func store(_ head: ResponseHead) {
        store(head.fields(named: "Set-Cookie").map { (name: "Set-Cookie", value: $0) }, from: head.url)
    }

    /// The cookies of one `Set-Cookie` value, or of several that FoundationNetworking joined with
    /// commas: a comma starts another cookie only where `name=` follows it (an `Expires` date's
    /// comma is followed by a day number and a space).
    package static func split(_ value: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var rest = Substring(value)
        while let comma = rest.firstIndex(of: ",") {
            current += rest[..<comma]
            let after = rest[rest.index(after: comma)...]
            if startsCookie(after) {
                parts.append(current)
                current = ""
            } else {
                current += ","
            }
            rest = after
        }
        current += rest
        parts.append(current)
        return parts.map { String($0.trimmingHTTPWhitespace()) }.filter { !$0.isEmpty }
    }

    private static func startsCookie(_ text: Substring) -> Bool {
        let trimmed = text.drop { $0 == " " || $0 == "\t" }
        guard let equals = trimmed.firstIndex(of: "=") else { return false }
        let name = trimmed[..<equals]
        return !name.isEmpty && !name.contains(where: { $0 == " " || $0 == ";" || $0 == "," || $0 == "\t" })
    }
}

/// One cookie as the jar keeps it (RFC 6265 §5.3).
struct StoredCookie: Sendable {
    let name: String
    let value: String
    /// Lowercased, without a leading dot.
    let domain: String
    /// Whether only `domain` itself, not its subdomains, gets the cookie (no `Domain` attribute).
    let hostOnly: Bool
    let path: String
    let secure: Bool
    let expires: Date?
    var created: Date

    /// The cookie of one `Set-Cookie` value answered by `host` for `url`; nil when RFC 6265 says
    /// to ignore it.
    init?(setCookie: String, host: String, url: URL, now: Date) {
        guard setCookie.utf8.count <= CookieJar.maximumCookieLength else { return nil }
        var attributes = setCookie.split(separator: ";", omittingEmptySubsequences: false).makeIterator()
        guard let pair = attributes.next(), let equals = pair.firstIndex(of: "=") else { return nil }
        let name = String(pair[..<equals].trimmingHTTPWhitespace())
        let value = String(pair[pair.index(after: equals)...].trimmingHTTPWhitespace())
        guard !name.isEmpty, RequestCheck.isFieldValue(name), RequestCheck.isFieldValue(value) else { return nil }
        var domainAttribute: String?
        var pathAttribute: String?
        var secure = false
        var expires: Date?
        var maxAge: Date?
        while let attribute = attributes.next() {
            let parts = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts[0].trimmingHTTPWhitespace().lowercased()
            let argument = parts.count > 1 ? String(parts[1].trimmingHTTPWhitespace()) : ""
            switch key {
            case "domain":
                let trimmed = argument.lowercased().drop { $0 == "." }
                if !trimmed.isEmpty { domainAttribute = String(trimmed) }
            case "path":
                if argument.hasPrefix("/") { pathAttribute = argument }
            case "secure":
                secure = true
            case "max-age":
                if let seconds = Int(argument) { maxAge = seconds <= 0 ? .distantPast : now.addingTimeInterval(TimeInterval(seconds)) }
            case "expires":
                expires = CookieDate.parse(argument)
            default:
                break
            }
        }
        // A cookie that asks for Secure must come over a secure connection (RFC 6265bis §5.6).
        let overHTTPS = url.scheme?.lowercased() == "https"
        if secure, !overHTTPS { return nil }
        // The prefixes promise what the cookie is (RFC 6265bis §4.1.3, matched in any case): a
        // server relies on them.
        let lowered = name.lowercased()
        if lowered.hasPrefix("__secure-") || lowered.hasPrefix("__host-") {
            guard secure, overHTTPS else { return nil }
        }
        if lowered.hasPrefix("__host-"), domainAttribute != nil || pathAttribute != "/" { return nil }
        if let domainAttribute {
            guard Self.domainMatches(host: host, domain: domainAttribute) else { return nil }
            // An IP address matches only itself; a domain with no dot would cover a whole TLD.
            if Self.isIPAddress(host), host != domainAttribute { return nil }
            if !domainAttribute.contains("."), host != domainAttribute { return nil }
            self.domain = domainAttribute
            self.hostOnly = false
        } else {
            self.domain = host
            self.hostOnly = true
        }
        self.name = name
        self.value = value
        self.path = pathAttribute ?? Self.defaultPath(of: url)
        self.secure = secure
        self.expires = maxAge ?? expires
        self.created = now
    }

    /// Whether a request to `host` and `path`, over https when `secure`, gets this cookie.
    func matches(host: String, path: String, secure isSecure: Bool) -> Bool {
        if secure, !isSecure { return false }
        if hostOnly ? host != domain : !Self.domainMatches(host: host, domain: domain) { return false }
        return Self.pathMatches(path, cookiePath: self.path)
    }

    /// RFC 6265 §5.1.3.
    static func domainMatches(host: String, domain: String) -> Bool {
        if host == domain { return true }
        return !isIPAddress(host) && host.hasSuffix("." + domain)
    }

    /// RFC 6265 §5.1.4.
    static func pathMatches(_ path: String, cookiePath: String) -> Bool {
        if path == cookiePath { return true }
        guard path.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || path.dropFirst(cookiePath.count).hasPrefix("/")
    }

    /// RFC 6265 §5.1.4's default path: the request path up to its last `/`.
    static func defaultPath(of url: URL) -> String {
        let path = url.path
        guard path.hasPrefix("/"), let last = path.lastIndex(of: "/"), last != path.startIndex else { return "/" }
        return String(path[..<last])
    }

    private static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || (!host.isEmpty && host.allSatisfy { $0.isNumber || $0 == "." })
    }
}

/// An `Expires` date, read as RFC 6265 §5.1.1 says: tokens split at delimiters, the first time
/// (`hh:mm:ss`), day of month, month name and year found, whatever the order and the weekday
/// (RFC 1123, RFC 850 and asctime dates all read).
enum CookieDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    static func parse(_ text: String) -> Date? {
        var time: (Int, Int, Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        let tokens = text.split { !($0.isLetter || $0.isNumber || $0 == ":") }
        for token in tokens {
            let lowered = token.lowercased()
            if time == nil, token.contains(":") {
                let parts = token.split(separator: ":").map { Int($0) }
                if parts.count == 3, let hour = parts[0], let minute = parts[1], let second = parts[2] {
                    time = (hour, minute, second)
                    continue
                }
            }
            if day == nil, token.count <= 2, let value = Int(token) {
                day = value
                continue
            }
            if month == nil, lowered.count >= 3, let index = months.firstIndex(of: String(lowered.prefix(3))) {
                month = index + 1
                continue
            }
            if year == nil, (2...4).contains(token.count), let value = Int(token) {
                year = value < 70 && token.count <= 2 ? 2000 + value : value < 100 && token.count <= 2 ? 1900 + value : value
            }
        }
        guard let (hour, minute, second) = time, let day, let month, let year, (1...31).contains(day), year >= 1601, hour < 24,
            minute < 60, second < 60
        else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day) = (year, month, day)
        (components.hour, components.minute, components.second) = (hour, minute, second)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.date(from: components)
    }
}
