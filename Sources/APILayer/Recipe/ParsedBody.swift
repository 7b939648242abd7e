import Foundation
import NetOps
import Validator

/// An operation that keeps the parsed form of the response body it received, so that every
/// step reading the body as JSON (the authentication rule, the pipeline) shares one parse.
protocol ParsedBodyHolder: AnyObject {
    /// `body` parsed as JSON: parsed on first use, then reused while the body is the same.
    func parsedBody(_ body: Data) -> Result<JSONValue, any Error>
}

/// The last response body parsed, with the bytes it was parsed from.
///
/// Each attempt of an operation receives a new body; a body is recognised as the one parsed
/// when it is the same buffer (the cache holds it, so its storage cannot be reused or changed)
/// or has the same bytes.
final class ParsedBodyCache: Sendable {
    private struct Entry {
        var body: Data
        var json: Result<JSONValue, any Error>
    }

    private let entry = Locked<Entry?>(nil)

    /// `body` parsed as JSON, parsed at most once per body. The parse runs outside the lock.
    func json(for body: Data) -> Result<JSONValue, any Error> {
        if let cached = entry.withLock({ $0 }), Self.same(cached.body, body) { return cached.json }
        let parsed = Result { try JSONValue(parsing: body) }
        entry.withLock { $0 = Entry(body: body, json: parsed) }
        return parsed
    }

    /// Forgets the parsed body (once the operation ended, nothing reads it again).
    func clear() {
        entry.withLock { $0 = nil }
    }

    private static func same(_ first: Data, _ second: Data) -> Bool {
        guard first.count == second.count else { return false }
        let sameBuffer = first.withUnsafeBytes { one in second.withUnsafeBytes { other in one.baseAddress == other.baseAddress } }
        return sameBuffer || first == second
    }
}
