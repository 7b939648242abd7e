import Validator

extension JSONValue {
    /// The object's fields, or nil for any other value.
    package var objectFields: [String: JSONValue]? {
        if case let .object(fields) = self { return fields }
        return nil
    }

    /// The string, or nil for any other value.
    package var stringValue: String? {
        if case let .string(text) = self { return text }
        return nil
    }

    /// The array's elements, or nil for any other value.
    package var arrayValue: [JSONValue]? {
        if case let .array(elements) = self { return elements }
        return nil
    }

    /// The number as a Double, or nil for any other value.
    package var numberValue: Double? {
        switch self {
        case let .int(value): return Double(value)
        case let .double(value): return value
        default: return nil
        }
    }
}
