import JSONCore

/// The rules a `name-Rules` dictionary of a template may hold.
///
/// Each rule applies to some JSON types only (`appliesTo(_:)`) and takes one kind of value:
/// `isOptional`, `isNullable`, `mustMatch`, `equalInLength` and `elementsMayBeNull` a boolean;
/// `minimum` and `maximum` a number;
/// the length and element-count rules a non-negative integer; `hasSuffix` a string;
/// `matchWithOneOf` a non-empty array of strings. All bounds are inclusive.
public enum Rule: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `true`: the key may be absent from the response, or `null`.
    case isOptional
    /// `true`: the key must be present in the response, and its value may be `null`; any other
    /// value must match the template. With `isOptional` also `true`, the key may be absent or
    /// `null`, as with `isOptional` alone.
    case isNullable
    /// `true`: the response's value must equal the template's (deeply, for arrays and objects).
    case mustMatch
    /// The number must be greater than or equal to this.
    case minimum
    /// The number must be less than or equal to this.
    case maximum
    /// `true`: the string must have as many Characters as the template's string.
    case equalInLength
    /// The string must have at least this many Characters.
    case lengthMustBeEqualOrGreaterThan
    /// The string must have at most this many Characters.
    case lengthMustBeEqualOrLessThan
    /// The string must end with this string.
    case hasSuffix
    /// The string must equal one of these strings.
    case matchWithOneOf
    /// The array must have at least this many elements.
    case elementsMustBeEqualOrMoreThan
    /// The array must have at most this many elements.
    case elementsMustBeEqualOrLessThan
    /// `true`: an element of the array may be `null`; every other element must match the
    /// template's element.
    case elementsMayBeNull

    /// The rule's name as written in a template.
    public var description: String { rawValue }

    /// Whether the rule may be attached to a template value of type `type`.
    ///
    /// `isOptional` and `isNullable` apply to every type; `mustMatch` to every type but `null`
    /// (a `null` template value matches anything, so there is nothing to match against).
    public func appliesTo(_ type: JSONType) -> Bool {
        switch self {
        case .isOptional, .isNullable: return true
        case .mustMatch: return type != .null
        case .minimum, .maximum: return type == .number
        case .equalInLength, .lengthMustBeEqualOrGreaterThan, .lengthMustBeEqualOrLessThan, .hasSuffix, .matchWithOneOf:
            return type == .string
        case .elementsMustBeEqualOrMoreThan, .elementsMustBeEqualOrLessThan, .elementsMayBeNull: return type == .array
        }
    }

    /// The types a rule applies to, in words, for template error messages.
    var appliesToDescription: String {
        switch self {
        case .isOptional, .isNullable: return "any value"
        case .mustMatch: return "any value but null"
        case .minimum, .maximum: return "numbers"
        case .equalInLength, .lengthMustBeEqualOrGreaterThan, .lengthMustBeEqualOrLessThan, .hasSuffix, .matchWithOneOf:
            return "strings"
        case .elementsMustBeEqualOrMoreThan, .elementsMustBeEqualOrLessThan, .elementsMayBeNull: return "arrays"
        }
    }
}

/// The compiled rules of one template value: what `name-Rules` said, checked and typed.
struct RuleSet: Sendable {
    /// The key may be absent (and its value `null`).
    var isOptional = false
    /// The key's value may be `null` (the key must still be present unless `isOptional`).
    var isNullable = false
    /// For an array: its elements may be `null`.
    var elementsMayBeNull = false
    var mustMatch = false
    var minimum: JSONValue?
    var maximum: JSONValue?
    /// The Character count the string must have (from `equalInLength` and the template's string).
    var exactLength: Int?
    var minLength: Int?
    var maxLength: Int?
    var suffix: String?
    var oneOf: [String]?
    var minElements: Int?
    var maxElements: Int?

    /// Whether the value may be `null` (`isOptional` or `isNullable`).
    var acceptsNull: Bool { isOptional || isNullable }

    /// Whether any rule beyond `isOptional`, `isNullable` and `elementsMayBeNull` must be
    /// evaluated on a value (those three are settled by the walk itself).
    var hasValueRules: Bool {
        mustMatch || minimum != nil || maximum != nil || exactLength != nil || minLength != nil || maxLength != nil
            || suffix != nil || oneOf != nil || minElements != nil || maxElements != nil
    }
}
