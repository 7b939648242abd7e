/// The six JSON types, a number being one type whether it is written `int` or `double`.
public enum JSONType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false` (never a number).
    case boolean
    /// Any number, integer or not.
    case number
    /// A string.
    case string
    /// An array.
    case array
    /// An object.
    case object

    /// The type of `value`.
    public init(of value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool: self = .boolean
        case .int, .double: self = .number
        case .string: self = .string
        case .array: self = .array
        case .object: self = .object
        }
    }

    /// The type's name, e.g. `number`.
    public var description: String { rawValue }
}

extension JSONValue {
    /// The JSON type of this value (`.int` and `.double` are both `.number`).
    public var type: JSONType { JSONType(of: self) }
}
