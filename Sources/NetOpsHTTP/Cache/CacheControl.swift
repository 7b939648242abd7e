import Foundation
import NetOps

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
