/// A single `Range: bytes=…` request header, resolved against a body size (RFC 9110 §14).
struct ByteRange: Equatable {
    /// First byte served, inclusive.
    var first: Int
    /// Last byte served, inclusive.
    var last: Int

    /// The number of bytes in the range.
    var length: Int { last - first + 1 }

    /// Parses `bytes=first-`, `bytes=first-last` or `bytes=-suffix` against `size`.
    ///
    /// Returns nil for anything else (several ranges, other units, garbage): the caller then
    /// serves the whole body, as RFC 9110 allows. Throws when the range cannot be satisfied.
    static func parse(_ header: String, size: Int) throws(Unsatisfiable) -> ByteRange? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst("bytes=".count)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[0].isEmpty {
            guard let suffix = Int(parts[1]), suffix > 0 else { return nil }
            guard size > 0 else { throw Unsatisfiable() }
            return ByteRange(first: max(0, size - suffix), last: size - 1)
        }
        guard let first = Int(parts[0]), first >= 0 else { return nil }
        guard first < size else { throw Unsatisfiable() }
        if parts[1].isEmpty { return ByteRange(first: first, last: size - 1) }
        guard let last = Int(parts[1]), last >= first else { return nil }
        return ByteRange(first: first, last: min(last, size - 1))
    }

    /// Thrown for a range that starts at or past the end of the body (answered with 416).
    struct Unsatisfiable: Error {}
}
