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
            let count = StringRules.characterCount(text)
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
        if let suffix = rules.suffix, !StringRules.hasSuffix(text, suffix) {
            fail(.rule(.hasSuffix), expected: "a string ending with \(JSONValue.string(suffix).excerpt)", actual: value.excerpt)
        }
        if let choices = rules.oneOf, !choices.contains(text) {
            fail(.rule(.matchWithOneOf), expected: "one of \(JSONValue.array(choices.map(JSONValue.string)).excerpt)", actual: value.excerpt)
        }
    }
}

/// Fast paths for the string rules that give exactly Swift's `String` answers.
enum StringRules {
    /// `text.count`, without grapheme breaking when the text is ASCII without `\r` (then every
    /// byte is one Character).
    static func characterCount(_ text: String) -> Int {
        let utf8 = text.utf8
        for byte in utf8 where byte >= 0x80 || byte == 0x0D {
            return text.count
        }
        return utf8.count
    }

    /// `text.hasSuffix(suffix)`: a byte comparison when it settles the answer, Swift's
    /// Character-based, canonical-equivalence comparison otherwise.
    static func hasSuffix(_ text: String, _ suffix: String) -> Bool {
        let textBytes = text.utf8
        let suffixBytes = suffix.utf8
        // Identical trailing bytes, starting right after an ASCII byte other than CR (which
        // always ends a grapheme cluster here) or at the start of the text, are a suffix.
        if let first = suffixBytes.first, first < 0x80, textBytes.count >= suffixBytes.count,
            textBytes.suffix(suffixBytes.count).elementsEqual(suffixBytes)
        {
            let boundary = textBytes.index(textBytes.endIndex, offsetBy: -suffixBytes.count)
            if boundary == textBytes.startIndex { return true }
            let before = textBytes[textBytes.index(before: boundary)]
            if before < 0x80, before != 0x0D { return true }
        }
        return text.hasSuffix(suffix)
    }
}
