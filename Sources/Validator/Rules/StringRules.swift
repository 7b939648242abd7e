import JSONCore

extension ValidationRun {
    /// The string rules. Lengths count Swift `Character`s (extended grapheme clusters): `"é"`
    /// is one whether composed or decomposed, a flag emoji is one. `hasSuffix` and
    /// `matchWithOneOf` compare with Swift's canonical-equivalence `String` semantics.
    mutating func applyStringRules(_ value: JSONValue, _ node: UnsafePointer<ValidationPlan.Node>) {
        guard case .string(let text) = value else {
            for (rule, present) in [
                (Rule.equalInLength, node.pointee.rules.exactLength != nil),
                (.lengthMustBeEqualOrGreaterThan, node.pointee.rules.minLength != nil),
                (.lengthMustBeEqualOrLessThan, node.pointee.rules.maxLength != nil),
                (.hasSuffix, node.pointee.rules.suffix != nil),
                (.matchWithOneOf, node.pointee.rules.oneOf != nil),
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
        if let exact = node.pointee.rules.exactLength, length() != exact {
            fail(.rule(.equalInLength), expected: "length \(exact)", actual: "length \(length()) \(value.excerpt)")
        }
        if let minimum = node.pointee.rules.minLength, text.utf8.count < minimum || length() < minimum {
            fail(.rule(.lengthMustBeEqualOrGreaterThan), expected: "length >= \(minimum)", actual: "length \(length()) \(value.excerpt)")
        }
        if let maximum = node.pointee.rules.maxLength, text.utf8.count > maximum, length() > maximum {
            fail(.rule(.lengthMustBeEqualOrLessThan), expected: "length <= \(maximum)", actual: "length \(length()) \(value.excerpt)")
        }
        if let suffix = node.pointee.rules.suffix, !StringRules.hasSuffix(text, suffix) {
            fail(.rule(.hasSuffix), expected: "a string ending with \(JSONValue.string(suffix).excerpt)", actual: value.excerpt)
        }
        if let choices = node.pointee.rules.oneOf, !choices.contains(text) {
            fail(.rule(.matchWithOneOf), expected: "one of \(JSONValue.array(choices.map(JSONValue.string)).excerpt)", actual: value.excerpt)
        }
    }
}

/// Fast paths for the string rules that give exactly Swift's `String` answers.
enum StringRules {
    /// `text.count`, without grapheme breaking when every scalar is below U+0300 and the text
    /// has no `\r`: such a text is one Character per scalar. (Grapheme clusters join scalars
    /// only through combining marks, joiners, Hangul, regional indicators, prepended marks and
    /// CR LF; below U+0300 there is none of them but CR LF. Latin-1 and Latin Extended letters
    /// such as "é", precomposed, are in that range.)
    static func characterCount(_ text: String) -> Int {
        let utf8 = text.utf8
        let simple = utf8.withContiguousStorageIfAvailable(simpleScalarCount) ?? nil
        return simple ?? text.count
    }

    /// The scalar count of UTF-8 `bytes` whose scalars are all below U+0300, none a CR; nil
    /// for any other text.
    private static func simpleScalarCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        // Eight ASCII bytes at a time: a byte >= 0x80 has its high bit set; a CR is a zero
        // byte of the word XORed with 0x0D in every byte.
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var position = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while position + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)
                let carriageReturns = word ^ (ones &* 0x0D)
                if (word | (carriageReturns &- ones) & ~carriageReturns) & highs != 0 { break }
                position += 8
            }
        }
        // Byte by byte from the first word with a non-ASCII byte or a CR: a two-byte sequence
        // led by 0xC2...0xCB is a scalar U+0080...U+02FF, its continuation byte not counted.
        var continuations = 0
        while position < bytes.count {
            switch bytes[position] {
            case 0x0D: return nil
            case 0x00..<0x80: break
            case 0x80...0xBF: continuations += 1
            case 0xC2...0xCB: break
            default: return nil
            }
            position += 1
        }
        return bytes.count - continuations
    }

    /// `text.hasSuffix(suffix)`: a byte comparison when it settles the answer, Swift's
    /// Character-based, canonical-equivalence comparison otherwise.
    static func hasSuffix(_ text: String, _ suffix: String) -> Bool {
        // Identical trailing bytes, starting right after an ASCII byte other than CR (which
        // always ends a grapheme cluster here) or at the start of the text, are a suffix.
        let settled = text.utf8.withContiguousStorageIfAvailable { textBytes in
            suffix.utf8.withContiguousStorageIfAvailable { suffixBytes -> Bool in
                guard let first = suffixBytes.first, first < 0x80, textBytes.count >= suffixBytes.count else { return false }
                let boundary = textBytes.count - suffixBytes.count
                guard Self.bytesEqual(textBytes.baseAddress! + boundary, suffixBytes.baseAddress!, suffixBytes.count) else { return false }
                if boundary == 0 { return true }
                let before = textBytes[boundary - 1]
                return before < 0x80 && before != 0x0D
            }
        }
        if settled == true { return true }
        return text.hasSuffix(suffix)
    }

    /// Whether the `count` bytes at `lhs` and at `rhs` are equal, compared eight at a time.
    private static func bytesEqual(_ lhs: UnsafePointer<UInt8>, _ rhs: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        var position = 0
        while position + 8 <= count {
            let left = UnsafeRawPointer(lhs).loadUnaligned(fromByteOffset: position, as: UInt64.self)
            let right = UnsafeRawPointer(rhs).loadUnaligned(fromByteOffset: position, as: UInt64.self)
            if left != right { return false }
            position += 8
        }
        while position < count {
            if lhs[position] != rhs[position] { return false }
            position += 1
        }
        return true
    }
}
