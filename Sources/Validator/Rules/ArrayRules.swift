import JSONCore

extension ValidationRun {
    /// `elementsMustBeEqualOrMoreThan` and `elementsMustBeEqualOrLessThan` (inclusive).
    mutating func applyArrayRules(_ value: JSONValue, _ node: UnsafePointer<ValidationPlan.Node>) {
        guard case .array(let elements) = value else {
            if node.pointee.rules.minElements != nil {
                fail(.rule(.elementsMustBeEqualOrMoreThan), expected: "an array", actual: value.typedDescription)
            }
            if node.pointee.rules.maxElements != nil {
                fail(.rule(.elementsMustBeEqualOrLessThan), expected: "an array", actual: value.typedDescription)
            }
            return
        }
        if let minimum = node.pointee.rules.minElements, elements.count < minimum {
            fail(.rule(.elementsMustBeEqualOrMoreThan), expected: "at least \(minimum) elements", actual: "\(elements.count) elements")
        }
        if let maximum = node.pointee.rules.maxElements, elements.count > maximum {
            fail(.rule(.elementsMustBeEqualOrLessThan), expected: "at most \(maximum) elements", actual: "\(elements.count) elements")
        }
    }
}
