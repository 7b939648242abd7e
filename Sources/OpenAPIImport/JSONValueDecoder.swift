import Foundation
import Validator

/// A `Decoder` over a parsed `JSONValue`: OpenAPIKit's types decode straight from the value the
/// bounded JSON or YAML reading made, without writing it out as text and parsing it again (YAML's
/// `.inf` and `.nan`, which JSON text cannot hold, decode as the `Double`s they are).
///
/// Types for which `standIn` returns a value are not decoded: that value stands in for them.
/// The importer uses this for JSON Schemas, which it reads itself (see `OpenAPIKitReading`).
///
/// Numbers decode by the rules every decoder over a `JSONValue` shares, with integers read
/// strictly (`JSONValue.IntegerReading.integerLiterals`): an integer type only from a number
/// written without a fraction or exponent, so `AnyCodable` keeps `1.0` a `Double` as the
/// description wrote it. (Mapper's decoder is the other one: it follows `JSONDecoder` for
/// models, key and date strategies included, and reads integers from any integral number. The
/// two stay apart because their readers want opposite integer rules and this one decodes
/// types it does not own through `standIn`.)
struct JSONValueDecoder {
    /// Passed to every `Decodable` initializer.
    var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    /// The value that stands in for a type the decoder does not decode; nil to decode it.
    var standIn: @Sendable (any Any.Type) -> Any? = { _ in nil }

    /// `value` decoded as `type`.
    func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, codingPath: [any CodingKey] = []) throws -> T {
        let options = Options(userInfo: userInfo, standIn: standIn)
        return try ValueDecoder(value: value, codingPath: codingPath, options: options).decodeValue(T.self)
    }

    /// What every decoder of one run shares.
    final class Options: Sendable {
        let userInfo: [CodingUserInfoKey: any Sendable]
        let standIn: @Sendable (any Any.Type) -> Any?

        init(userInfo: [CodingUserInfoKey: any Sendable], standIn: @escaping @Sendable (any Any.Type) -> Any?) {
            self.userInfo = userInfo
            self.standIn = standIn
        }
    }

    /// An array index in a coding path.
    struct IndexKey: CodingKey {
        let intValue: Int?
        var stringValue: String { String(intValue ?? 0) }
        init(_ index: Int) { intValue = index }
        init?(intValue: Int) { self.intValue = intValue }
        init?(stringValue: String) {
            guard let index = Int(stringValue) else { return nil }
            intValue = index
        }
    }
}

/// The decoder of one value.
private struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let options: JSONValueDecoder.Options

    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case let .object(fields) = value else { throw mismatch([String: Any].self) }
        return KeyedDecodingContainer(KeyedContainer<Key>(fields: fields, codingPath: codingPath, options: options))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case let .array(elements) = value else { throw mismatch([Any].self) }
        return UnkeyedContainer(elements: elements, codingPath: codingPath, options: options)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValueContainer(decoder: self) }

    func mismatch(_ type: Any.Type) -> DecodingError {
        let found: String
        switch value {
        case .null: found = "null"
        case .bool: found = "a boolean"
        case .int, .double: found = "a number"
        case .string: found = "a string"
        case .array: found = "an array"
        case .object: found = "an object"
        }
        return DecodingError.typeMismatch(
            type, DecodingError.Context(codingPath: codingPath, debugDescription: "Expected \(type) but found \(found) instead."))
    }

    /// `value` as `T`: a stand-in, a primitive read directly, or `T`'s own initializer.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if let standIn = options.standIn(T.self) as? T { return standIn }
        if let primitive = try primitive(T.self) { return primitive }
        return try T(from: self)
    }

    /// The primitives `SingleValueDecodingContainer` names, read without an initializer; nil for
    /// any other type.
    func primitive<T>(_ type: T.Type) throws -> T? {
        switch type {
        case is String.Type:
            guard case let .string(text) = value else { throw mismatch(type) }
            return text as? T
        case is Bool.Type:
            guard case let .bool(flag) = value else { throw mismatch(type) }
            return flag as? T
        case is Double.Type:
            guard let number = value.doubleValue else { throw mismatch(type) }
            return number as? T
        case is Float.Type:
            switch value.floatValue {
            case let .number(number): return number as? T
            case let .doesNotFit(written):
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: codingPath, debugDescription: JSONValue.doesNotFitDescription(written, Float.self)))
            case .notANumber: throw mismatch(type)
            }
        case is Int.Type: return try integer(Int.self) as? T
        case is Int8.Type: return try integer(Int8.self) as? T
        case is Int16.Type: return try integer(Int16.self) as? T
        case is Int32.Type: return try integer(Int32.self) as? T
        case is Int64.Type: return try integer(Int64.self) as? T
        case is UInt.Type: return try integer(UInt.self) as? T
        case is UInt8.Type: return try integer(UInt8.self) as? T
        case is UInt16.Type: return try integer(UInt16.self) as? T
        case is UInt32.Type: return try integer(UInt32.self) as? T
        case is UInt64.Type: return try integer(UInt64.self) as? T
        default: return nil
        }
    }

    private func integer<I: FixedWidthInteger & Sendable>(_ type: I.Type) throws -> I {
        switch value.integer(type, reading: .integerLiterals) {
        case let .number(integer): return integer
        case let .doesNotFit(written):
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: codingPath, debugDescription: JSONValue.doesNotFitDescription(written, type)))
        case .notANumber: throw mismatch(type)
        }
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let fields: [String: JSONValue]
    let codingPath: [any CodingKey]
    let options: JSONValueDecoder.Options

    var allKeys: [Key] { fields.keys.compactMap(Key.init(stringValue:)) }

    func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil }

    private func decoder(for key: any CodingKey) throws -> ValueDecoder {
        guard let value = fields[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key, DecodingError.Context(codingPath: codingPath, debugDescription: "No value for the key \"\(key.stringValue)\"."))
        }
        return ValueDecoder(value: value, codingPath: codingPath + [key], options: options)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try decoder(for: key).value == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder(for: key).decodeValue(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try decoder(for: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(for: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: .object(fields), codingPath: codingPath, options: options)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { try decoder(for: key) }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    let options: JSONValueDecoder.Options
    private(set) var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey], options: JSONValueDecoder.Options) {
        self.elements = elements
        self.codingPath = codingPath
        self.options = options
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private func next(_ type: Any.Type) throws -> ValueDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, DecodingError.Context(codingPath: codingPath, debugDescription: "The array has no more elements."))
        }
        return ValueDecoder(
            value: elements[currentIndex], codingPath: codingPath + [JSONValueDecoder.IndexKey(currentIndex)], options: options)
    }

    mutating func decodeNil() throws -> Bool {
        guard try next(Any?.self).value == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try next(type).decodeValue(type)
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try next(type).container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try next([Any].self).unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = try next(Any.self)
        currentIndex += 1
        return decoder
    }
}

private struct SingleValueContainer: SingleValueDecodingContainer {
    let decoder: ValueDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value == .null }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type) }
}
