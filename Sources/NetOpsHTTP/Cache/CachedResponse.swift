import Foundation
import NetOps

/// One stored response of an `HTTPCache`: the head and body an engine delivered, when it was
/// asked for and received, and what RFC 9111 derives from its fields (lifetime, validators).
///
/// Immutable: a 304 that freshens it makes a new one (`updated(with:requestTime:responseTime:)`)
/// that keeps the body and the `derived` values made from that body.
final class CachedResponse: Sendable {
    /// One header field.
    struct Field: Sendable, Codable, Equatable {
        var name: String
        var value: String
    }

    /// The URL asked for, without its fragment: the first half of the key.
    let url: String
    /// The digest of the request's header fields (apart from trace context): the second half
    /// of the key. Two requests that differ in a token, a cookie or any other field never share
    /// an entry.
    let partition: String
    let status: Int
    let httpVersion: String
    /// The stored fields, sorted by name; `Set-Cookie` is never stored.
    let fields: [Field]
    let body: Data
    /// When the request was sent and when its answer arrived (RFC 9111 §4.2.3).
    let requestTime: Date
    let responseTime: Date

    /// Values made from the body (an API operation's validated, mapped model), kept with it.
    let derived: DerivedValues
    let control: CacheControl
    /// How long the response is fresh, from its `max-age` or `Expires` (capped).
    let freshnessLifetime: TimeInterval
    /// The age it had when it arrived (RFC 9111 §4.2.3's `corrected_initial_age`).
    let initialAge: TimeInterval
    let etag: String?
    let lastModified: String?
    /// The entry's size as the byte bounds count it.
    let byteCount: Int

    init(
        url: String, partition: String, status: Int, httpVersion: String, fields: [Field], body: Data, requestTime: Date,
        responseTime: Date, maximumFreshness: TimeInterval, derived: DerivedValues = DerivedValues()
    ) {
        self.url = url
        self.partition = partition
        self.status = status
        self.httpVersion = httpVersion
        // Each name lowered once: the sort and the lookups below compare the lowered names.
        var named: [(name: String, field: Field)] = []
        named.reserveCapacity(fields.count)
        for field in fields {
            let name = field.name.lowercased()
            if name != "set-cookie" { named.append((name, field)) }
        }
        named.sort { $0.name < $1.name }
        self.fields = named.map(\.field)
        self.body = body
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.derived = derived
        let read = Self.Lookup(named)
        control = CacheControl(read.cacheControl, pragma: read.pragma)
        etag = read.etag
        lastModified = read.lastModified
        let date = read.date.flatMap { HTTPDate.parse($0) }
        var lifetime: TimeInterval = 0
        if let maxAge = control.maxAge {
            lifetime = maxAge
        } else if let expires = read.expires {
            // An invalid `Expires` (such as "0") means already expired (RFC 9111 §5.3).
            if let expiry = HTTPDate.parse(expires) { lifetime = max(0, expiry.timeIntervalSince(date ?? responseTime)) }
        }
        freshnessLifetime = min(lifetime, maximumFreshness)
        let apparentAge = max(0, responseTime.timeIntervalSince(date ?? responseTime))
        let ageValue = read.age.flatMap { CacheControl.delta(Substring($0)) } ?? 0
        let correctedAge = ageValue + max(0, responseTime.timeIntervalSince(requestTime))
        initialAge = max(apparentAge, correctedAge)
        byteCount = body.count + self.fields.reduce(256) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 } + url.utf8.count
    }

    /// The fields the cache reads, found in one pass over the lowered names; repeated fields
    /// joined with ", ".
    private struct Lookup {
        var cacheControl: String?
        var pragma: String?
        var etag: String?
        var lastModified: String?
        var date: String?
        var expires: String?
        var age: String?

        init(_ named: [(name: String, field: Field)]) {
            for (name, field) in named {
                switch name {
                case "cache-control": Self.add(field.value, to: &cacheControl)
                case "pragma": Self.add(field.value, to: &pragma)
                case "etag": Self.add(field.value, to: &etag)
                case "last-modified": Self.add(field.value, to: &lastModified)
                case "date": Self.add(field.value, to: &date)
                case "expires": Self.add(field.value, to: &expires)
                case "age": Self.add(field.value, to: &age)
                default: continue
                }
            }
        }

        private static func add(_ value: String, to joined: inout String?) {
            joined = joined.map { $0 + ", " + value } ?? value
        }
    }

    /// Its age at `now` (RFC 9111 §4.2.3's `current_age`).
    func age(at now: Date) -> TimeInterval {
        initialAge + max(0, now.timeIntervalSince(responseTime))
    }

    /// Whether it may answer a request with `request`'s directives at `now` without asking the
    /// server (RFC 9111 §4.2 and §5.2.1).
    func isFresh(for request: CacheControl, at now: Date) -> Bool {
        guard !control.noCache, !request.noCache else { return false }
        let age = age(at: now)
        if let maxAge = request.maxAge, age > maxAge { return false }
        let lifetime = freshnessLifetime - (request.minFresh ?? 0)
        if age < lifetime { return true }
        // Stale: served only when the request accepts that much staleness and the server did
        // not forbid it.
        guard !control.mustRevalidate, let maxStale = request.maxStale else { return false }
        return age - lifetime <= maxStale
    }

    /// Whether a conditional request can freshen it.
    var hasValidators: Bool { etag != nil || lastModified != nil }

    /// Whether its `ETag` and `Last-Modified` may go out as `If-None-Match` and
    /// `If-Modified-Since` (`RequestCheck`): no control character, no CR or LF.
    var validatorsAreFieldValues: Bool {
        (etag.map(RequestCheck.isFieldValue) ?? true) && (lastModified.map(RequestCheck.isFieldValue) ?? true)
    }

    /// The head it answers with, its `Age` field set to `age`; `requestURL` is the URL of the
    /// request it answers (the stored one's text with nothing changed, so not parsed again).
    func head(age: TimeInterval, requestURL: URL) -> ResponseHead {
        var fields = fields.filter { !$0.name.caseInsensitiveEquals("Age") }.map { (name: $0.name, value: $0.value) }
        fields.append((name: "Age", value: String(Int64(min(age, CacheControl.largestDelta).rounded(.down)))))
        return ResponseHead(url: requestURL, statusCode: status, httpVersion: httpVersion, fields: fields)
    }

    /// This response freshened by a 304's fields (RFC 9111 §3.2: each field the 304 carries
    /// replaces the stored ones of that name, except those that describe the body).
    func updated(with notModified: ResponseHead, requestTime: Date, responseTime: Date, maximumFreshness: TimeInterval) -> CachedResponse {
        let notModifiedFields = notModified.orderedFields
        var arriving: [Field] = []
        arriving.reserveCapacity(notModifiedFields.count)
        var replaced: [String] = []
        replaced.reserveCapacity(notModifiedFields.count)
        for (name, value) in notModifiedFields {
            let lowered = name.lowercased()
            switch lowered {
            case "content-length", "content-encoding", "transfer-encoding", "content-range", "content-type", "set-cookie": continue
            default: break
            }
            arriving.append(Field(name: name, value: value))
            if !replaced.contains(lowered) { replaced.append(lowered) }
        }
        var merged: [Field] = []
        merged.reserveCapacity(fields.count + arriving.count)
        for field in fields where !replaced.contains(where: { field.name.caseInsensitiveEquals($0) }) { merged.append(field) }
        merged += arriving
        return CachedResponse(
            url: url, partition: partition, status: status, httpVersion: httpVersion, fields: merged, body: body,
            requestTime: requestTime, responseTime: responseTime, maximumFreshness: maximumFreshness, derived: derived)
    }

    /// Whether a 304 is about this response (RFC 9111 §4.3.4): its strong `ETag`, if it sends
    /// one, must be the stored one; else its `Last-Modified`, if it sends one.
    func isSelected(by notModified: ResponseHead) -> Bool {
        if let tag = notModified.value(forHTTPHeaderField: "ETag") {
            guard let etag else { return false }
            return Self.opaque(tag) == Self.opaque(etag)
        }
        if let modified = notModified.value(forHTTPHeaderField: "Last-Modified"), let lastModified {
            return modified.trimmingHTTPWhitespace() == lastModified.trimmingHTTPWhitespace()
        }
        return true
    }

    /// An entity tag without its weakness marker (the weak comparison of RFC 9110 §8.8.3.2).
    private static func opaque(_ tag: String) -> String {
        let trimmed = tag.trimmingHTTPWhitespace()
        return String(trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : trimmed)
    }
}

/// Values made from a stored body, by a key the maker chooses (it names what was made and the
/// version of everything it was made with); bounded, the oldest dropped first. The cache that
/// holds the body counts each value in its memory bound (`watch(_:)`).
package final class DerivedValues: Sendable {
    private struct State {
        var values: [String: any Sendable] = [:]
        var order: [String] = []
        var onChange: (@Sendable (Int) -> Void)?
    }

    private static let limit = 8
    private let state = Locked(State())

    package init() {}

    /// The value kept under `key`.
    package func value(for key: String) -> (any Sendable)? {
        state.withLock { $0.values[key] }
    }

    /// Keeps `value` under `key`.
    package func set(_ value: any Sendable, for key: String) {
        let (change, listener) = state.withLock { state -> (Int, (@Sendable (Int) -> Void)?) in
            var change = 0
            if state.values.updateValue(value, forKey: key) == nil {
                state.order.append(key)
                change += 1
            }
            if state.order.count > Self.limit {
                state.values[state.order.removeFirst()] = nil
                change -= 1
            }
            return (change, state.onChange)
        }
        if change != 0 { listener?(change) }
    }

    /// The values kept now.
    var count: Int { state.withLock { $0.values.count } }

    /// Tells `onChange` how many values each later `set` added (1) or dropped (-1), outside the
    /// lock; it replaces the listener before.
    func watch(_ onChange: @escaping @Sendable (Int) -> Void) {
        state.withLock { $0.onChange = onChange }
    }
}
