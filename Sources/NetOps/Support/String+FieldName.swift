extension String {
    /// ASCII case-insensitive equality, the comparison HTTP field names use; texts of different
    /// UTF-8 lengths are told apart without reading them.
    package func caseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        var left = utf8.makeIterator()
        var right = other.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil):
                return true
            case let (a?, b?):
                if a == b { continue }
                let lowerA = a >= 65 && a <= 90 ? a | 0x20 : a
                let lowerB = b >= 65 && b <= 90 ? b | 0x20 : b
                if lowerA != lowerB { return false }
            default:
                return false
            }
        }
    }
}

extension Substring {
    /// The text without the spaces and tabs HTTP allows around a field value or a list element
    /// (RFC 9110's optional whitespace). Read by UTF-8 code unit: Foundation's
    /// `trimmingCharacters(in:)` goes through `NSString` on Linux and costs a header parse.
    package func trimmingHTTPWhitespace() -> Substring {
        let bytes = utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start = bytes.index(after: start) }
        while start < end {
            let last = bytes.index(before: end)
            guard bytes[last] == 0x20 || bytes[last] == 0x09 else { break }
            end = last
        }
        return self[start..<end]
    }
}

extension String {
    /// The text without the spaces and tabs HTTP allows around a field value or a list element.
    package func trimmingHTTPWhitespace() -> Substring {
        self[...].trimmingHTTPWhitespace()
    }
}
