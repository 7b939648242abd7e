/// Which checks `Validator.validate` performs.
///
/// "Top-level" objects are the template's root object, or, when the root is an array, the
/// objects directly inside it (arrays do not add a level). Every object reached through a key is
/// a sub-entity. Value types and rules are checked at every depth the validator walks into.
public struct ValidationMask: OptionSet, Sendable, Hashable {
    /// The mask's bits, one per check.
    public let rawValue: UInt

    /// Creates a mask from its bits.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// Every key of a top-level template object is present in the response (unless `isOptional`;
    /// an `isNullable` key must be present too).
    public static let keys = ValidationMask(rawValue: 1 << 0)
    /// The same as `keys`, for objects nested inside other objects, at any depth.
    public static let subEntityKeys = ValidationMask(rawValue: 1 << 1)
    /// Each value has the JSON type of the template's value (`null` in a template matches anything).
    public static let valueTypes = ValidationMask(rawValue: 1 << 2)
    /// The rules of `name-Rules` dictionaries (`isOptional`, `isNullable` and
    /// `elementsMayBeNull` are honoured whatever the mask: they describe the shape).
    public static let extendedRules = ValidationMask(rawValue: 1 << 3)
    /// Every check.
    public static let all: ValidationMask = [.keys, .subEntityKeys, .valueTypes, .extendedRules]

    /// The mask one command-line name stands for: `keys`, `subkeys` (or `subEntityKeys`),
    /// `types` (or `valueTypes`), `rules` (or `extendedRules`), `all`; `nil` for anything else.
    public static func named(_ name: String) -> ValidationMask? {
        switch name {
        case "keys": return .keys
        case "subkeys", "subEntityKeys": return .subEntityKeys
        case "types", "valueTypes": return .valueTypes
        case "rules", "extendedRules": return .extendedRules
        case "all": return .all
        default: return nil
        }
    }
}
