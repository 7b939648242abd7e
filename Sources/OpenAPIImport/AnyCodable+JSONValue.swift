import Foundation
import OpenAPIKit
import Validator

extension JSONValue {
    /// The value OpenAPIKit read into an `AnyCodable` (an example), as the package's JSON value;
    /// nil for what JSON has no value for.
    ///
    /// The document was decoded by `JSONValueDecoder`, so the value holds only what it makes:
    /// `NSNull`, `Bool`, `Int`, `UInt`, `Double`, `String`, arrays and string-keyed dictionaries.
    init?(openAPIKit value: AnyCodable) {
        self.init(openAPIKitValue: value.value)
    }

    private init?(openAPIKitValue value: Any) {
        switch value {
        case is NSNull, is Void: self = .null
        case let flag as Bool: self = .bool(flag)
        case let number as Int: self = .int(number)
        case let number as UInt:
            guard let exact = Int(exactly: number) else { return nil }
            self = .int(exact)
        case let number as Double: self = .double(number)
        case let text as String: self = .string(text)
        case let elements as [Any]:
            var array: [JSONValue] = []
            array.reserveCapacity(elements.count)
            for element in elements {
                guard let converted = JSONValue(openAPIKitValue: element) else { return nil }
                array.append(converted)
            }
            self = .array(array)
        case let fields as [String: Any]:
            var object: [String: JSONValue] = [:]
            object.reserveCapacity(fields.count)
            for (key, field) in fields {
                guard let converted = JSONValue(openAPIKitValue: field) else { return nil }
                object[key] = converted
            }
            self = .object(object)
        case let wrapped as AnyCodable:
            self.init(openAPIKitValue: wrapped.value)
        default:
            return nil
        }
    }
}
