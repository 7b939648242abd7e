extension ValidationRun {
    /// The string rules. Lengths count Swift `Character`s (extended grapheme clusters): `"é"`
    /// is one whether composed or decomposed, a flag emoji is one. `hasSuffix` and
    /// `matchWithOneOf` compare with Swift's canonical-equivalence `String` semantics.
    mutating func applyStringRules(_ value: JSONValue, _ rules: RuleSet) {
        guard case .string(let text) = value else {
            for (rule, present) in [
                (Rule.equalInLength, rules.exactLength != nil),
                (.lengthMustBeEqualOrGreaterThan, rules.minLength != nil),
                (.lengthMustBeEqualOrLessThan, rules.maxLength != nil),
                (.hasSuffix, rules.suffix != nil),
                (.matchWithOneOf, rules.oneOf != nil),
            ] where present {
                fail(.rule(rule), expected: "a string", actual: value.typedDescription)
            }
            return
        }
        // A string never has more Characters than UTF-8 bytes: when the byte count already
        // settles a bound, the (slower) Character count is skipped.
        var counted: Int?
        func length() -> Int {
            if let counted { return counted }
            let count = text.count
            counted = count
            return count
        }
        if let exact = rules.exactLength, length() != exact {
            fail(.rule(.equalInLength), expected: "length \(exact)", actual: "length \(length()) \(value.excerpt)")
        }
        if let minimum = rules.minLength, text.utf8.count < minimum || length() < minimum {
            fail(.rule(.lengthMustBeEqualOrGreaterThan), expected: "length >= \(minimum)", actual: "length \(length()) \(value.excerpt)")
        }
        if let maximum = rules.maxLength, text.utf8.count > maximum, length() > maximum {
            fail(.rule(.lengthMustBeEqualOrLessThan), expected: "length <= \(maximum)", actual: "length \(length()) \(value.excerpt)")
        }
        if let suffix = rules.suffix, !text.hasSuffix(suffix) {
            fail(.rule(.hasSuffix), expected: "a string ending with \(JSONValue.string(suffix).excerpt)", actual: value.excerpt)
        }
        if let choices = rules.oneOf, !choices.contains(text) {
            fail(.rule(.matchWithOneOf), expected: "one of \(JSONValue.array(choices.map(JSONValue.string)).excerpt)", actual: value.excerpt)
        }
    }
}
