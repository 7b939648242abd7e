import JSONCore

/// Equality as `mustMatch` sees it: deep, with numbers compared by value (`1` equals `1.0`).
enum JSONEquality {
    /// Whether `lhs` and `rhs` are the same JSON value.
    static func equal(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.int, .int), (.int, .double), (.double, .int), (.double, .double):
            return NumberRules.compare(lhs, rhs) == 0
        case (.array(let a), .array(let b)):
            guard a.count == b.count else { return false }
            for index in a.indices where !equal(a[index], b[index]) { return false }
            return true
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            for (key, value) in a {
                guard let other = b[key], equal(value, other) else { return false }
            }
            return true
        default:
            return false
        }
    }
}
