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
