import JSONCore

/// `minimum` and `maximum`, and exact comparison of JSON numbers.
enum NumberRules {
    /// Compares two numbers exactly (an `Int` against a `Double` without rounding the `Int`):
    /// -1, 0 or 1; `nil` when either is not a number or is NaN.
    static func compare(_ lhs: JSONValue, _ rhs: JSONValue) -> Int? {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): return a < b ? -1 : (a > b ? 1 : 0)
        case (.double(let a), .double(let b)):
            if a.isNaN || b.isNaN { return nil }
            return a < b ? -1 : (a > b ? 1 : 0)
        case (.int(let a), .double(let b)): return compare(a, b)
        case (.double(let a), .int(let b)): return compare(b, a).map { -$0 }
        default: return nil
        }
    }

    /// The sign of `integer - real`, exactly.
    private static func compare(_ integer: Int, _ real: Double) -> Int? {
        if real.isNaN { return nil }
        // 2^63 is exactly representable; every Double at or above it exceeds every Int.
        if real >= 9_223_372_036_854_775_808.0 { return -1 }
        if real < -9_223_372_036_854_775_808.0 { return 1 }
        let whole = real.rounded(.towardZero)
        let wholeInt = Int(whole)
        if integer != wholeInt { return integer < wholeInt ? -1 : 1 }
        let fraction = real - whole
        return fraction > 0 ? -1 : (fraction < 0 ? 1 : 0)
    }
}

extension ValidationRun {
    /// `minimum` and `maximum` (inclusive).
    mutating func applyNumberRules(_ value: JSONValue, _ node: UnsafePointer<ValidationPlan.Node>) {
        if let minimum = node.pointee.rules.minimum {
            let order = NumberRules.compare(value, minimum)
            if order == nil || order == -1 {
                fail(.rule(.minimum), expected: ">= \(minimum.jsonText)", actual: value.type == .number ? value.excerpt : value.typedDescription)
            }
        }
        if let maximum = node.pointee.rules.maximum {
            let order = NumberRules.compare(value, maximum)
            if order == nil || order == 1 {
                fail(.rule(.maximum), expected: "<= \(maximum.jsonText)", actual: value.type == .number ? value.excerpt : value.typedDescription)
            }
        }
    }
}
