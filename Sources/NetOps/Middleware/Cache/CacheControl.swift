import Foundation

/// The `Cache-Control` directives of a request or a response that a private cache acts on
/// (RFC 9111 §5.2), read leniently: unknown directives are ignored, a malformed or negative
/// number is ignored, and a number too large for the clock is capped.
struct CacheControl: Equatable {
    var noStore = false
    var noCache = false
    var mustRevalidate = false
    var onlyIfCached = false
    var maxAge: TimeInterval?
    /// A request's `max-stale`: nil when absent, `.infinity` when it has no value.
    var maxStale: TimeInterval?
    var minFresh: TimeInterval?
    var staleIfError: TimeInterval?

    /// The longest lifetime a number in a directive may give (about 68 years, as RFC 9111
    /// §1.2.2 advises for delta-seconds that overflow).
    static let largestDelta: TimeInterval = 2_147_483_648

    /// The directives of every `Cache-Control` field (joined with ", ") and `Pragma: no-cache`.
    init(_ cacheControl: String?, pragma: String? = nil) {
        if let pragma, cacheControl == nil, pragma.lowercased().contains("no-cache") { noCache = true }
        guard let cacheControl else { return }
        // Read in place, directive by directive: no array of parts, no lowered copy of a name.
        var rest = Substring(cacheControl)
        while !rest.isEmpty {
            let part: Substring
            if let comma = rest.utf8.firstIndex(of: UInt8(ascii: ",")) {
                part = rest[..<comma]
                rest = rest[rest.utf8.index(after: comma)...]
            } else {
                part = rest
                rest = rest[rest.endIndex...]
            }
            let name: Substring
            let argument: Substring?
            if let equals = part.utf8.firstIndex(of: UInt8(ascii: "=")) {
                name = part[..<equals].trimmingHTTPWhitespace()
                argument = part[part.utf8.index(after: equals)...]
            } else {
                name = part.trimmingHTTPWhitespace()
                argument = nil
            }
            let seconds = argument.flatMap(Self.delta)
            switch Directive(name) {
            case .noStore: noStore = true
            // `no-cache="field"` restricts only some fields; a private cache that keeps whole
            // responses treats it as `no-cache`.
            case .noCache: noCache = true
            case .mustRevalidate: mustRevalidate = true
            case .onlyIfCached: onlyIfCached = true
            case .maxAge: if let seconds { maxAge = seconds }
            case .maxStale: maxStale = argument?.isEmpty == false ? seconds : .infinity
            case .minFresh: if let seconds { minFresh = seconds }
            case .staleIfError: if let seconds { staleIfError = seconds }
            case nil: continue
            }
        }
    }

    /// The directives a private cache acts on, named in any case.
    private enum Directive {
        case noStore, noCache, mustRevalidate, onlyIfCached, maxAge, maxStale, minFresh, staleIfError

        init?(_ name: Substring) {
            switch name.utf8.count {
            case 7 where Self.named(name, "max-age"): self = .maxAge
            case 8 where Self.named(name, "no-store"): self = .noStore
            case 8 where Self.named(name, "no-cache"): self = .noCache
            case 9 where Self.named(name, "max-stale"): self = .maxStale
            case 9 where Self.named(name, "min-fresh"): self = .minFresh
            case 14 where Self.named(name, "only-if-cached"): self = .onlyIfCached
            case 14 where Self.named(name, "stale-if-error"): self = .staleIfError
            case 15 where Self.named(name, "must-revalidate"): self = .mustRevalidate
            case 16 where Self.named(name, "proxy-revalidate"): self = .mustRevalidate
            default: return nil
            }
        }

        /// ASCII case-insensitive equality with a lower-case `directive`.
        private static func named(_ name: Substring, _ directive: StaticString) -> Bool {
            directive.withUTF8Buffer { expected in
                name.utf8.elementsEqual(expected) { byte, lower in (byte >= 65 && byte <= 90 ? byte | 0x20 : byte) == lower }
            }
        }
    }

    /// A delta-seconds value: digits only (quotes allowed), capped at `largestDelta`.
    static func delta(_ text: Substring) -> TimeInterval? {
        var digits = text.trimmingHTTPWhitespace()
        if digits.count >= 2, digits.hasPrefix("\""), digits.hasSuffix("\"") { digits = digits.dropFirst().dropLast() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        guard digits.count < 11, let value = Int64(digits) else { return largestDelta }
        return min(TimeInterval(value), largestDelta)
    }
}

/// HTTP dates (RFC 9110 §5.6.7): the preferred IMF-fixdate, and the obsolete RFC 850 and
/// asctime forms a recipient must accept. All three are read by hand: a server that sends
/// `Date: x` on every answer costs a few byte comparisons per answer, not the making of a
/// `DateFormatter` (which costs more than a request's other work together).
enum HTTPDate {
    /// The date `text` names, or nil when it is none of the three forms.
    static func parse(_ text: String, now: Date = Date()) -> Date? {
        let trimmed = String(text.trimmingHTTPWhitespace())
        if let date = imfFixdate(trimmed) { return date }
        let bytes = Array(trimmed.utf8)
        guard bytes.count >= 24, bytes.count <= 33 else { return nil }
        return rfc850(bytes, now: now) ?? asctime(bytes)
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT`, read by hand: 29 bytes in fixed places.
    static func imfFixdate(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == 32, bytes[7] == 32, bytes[11] == 32, bytes[16] == 32,
            bytes[26...28].elementsEqual("GMT".utf8), let day = number(bytes, 5..<7), let month = month(bytes, 8),
            let year = number(bytes, 12..<16)
        else { return nil }
        return date(year: year, month: month, day: day, time: bytes, at: 17)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`: a two-digit year more than 50 years ahead of `now` is
    /// the last such year in the past (RFC 9110 §5.6.7).
    private static func rfc850(_ bytes: [UInt8], now: Date) -> Date? {
        guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")), weekdays.contains(where: { bytes[..<comma].elementsEqual($0.utf8) }),
            bytes.count == comma + 24, bytes[comma + 1] == 32, bytes[comma + 4] == UInt8(ascii: "-"), bytes[comma + 8] == UInt8(ascii: "-"),
            bytes[comma + 11] == 32, bytes[comma + 20] == 32, bytes[(comma + 21)...].elementsEqual("GMT".utf8),
            let day = number(bytes, (comma + 2)..<(comma + 4)), let month = month(bytes, comma + 5),
            let twoDigits = number(bytes, (comma + 9)..<(comma + 11))
        else { return nil }
        let thisYear = Int(now.timeIntervalSince1970 / 31_556_952) + 1970
        var year = thisYear - thisYear % 100 + twoDigits
        if year > thisYear + 50 { year -= 100 }
        return date(year: year, month: month, day: day, time: bytes, at: comma + 12)
    }

    /// `Sun Nov  6 08:49:37 1994` (the day padded with a space to two places).
    private static func asctime(_ bytes: [UInt8]) -> Date? {
        guard bytes.count == 24, bytes[3] == 32, bytes[7] == 32, bytes[10] == 32, bytes[19] == 32,
            bytes[0..<3].allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "z") }), let month = month(bytes, 4),
            let day = bytes[8] == 32 ? number(bytes, 9..<10) : number(bytes, 8..<10), let year = number(bytes, 20..<24)
        else { return nil }
        return date(year: year, month: month, day: day, time: bytes, at: 11)
    }

    /// The decimal number of `bytes[range]`, digits only.
    private static func number(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
        var value = 0
        for index in range {
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// The month (1…12) named by the three bytes at `index`.
    private static func month(_ bytes: [UInt8], _ index: Int) -> Int? {
        months.firstIndex { bytes[index..<(index + 3)].elementsEqual($0.utf8) }.map { $0 + 1 }
    }

    /// The date of `year`, `month`, `day` and the `HH:MM:SS` at `offset` of `time`, in GMT.
    private static func date(year: Int, month: Int, day: Int, time bytes: [UInt8], at offset: Int) -> Date? {
        guard bytes[offset + 2] == UInt8(ascii: ":"), bytes[offset + 5] == UInt8(ascii: ":"), let hour = number(bytes, offset..<(offset + 2)),
            let minute = number(bytes, (offset + 3)..<(offset + 5)), let second = number(bytes, (offset + 6)..<(offset + 8)),
            (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        // Days since 1970-01-01 of a civil date (Howard Hinnant's `days_from_civil`).
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// `date` as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
