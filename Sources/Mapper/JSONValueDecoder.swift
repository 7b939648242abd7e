import Foundation
import JSONCore

/// A `Decoder` over a parsed `JSONValue`: models are decoded from the value a response was
/// parsed into, without serializing it again for `JSONDecoder`.
///
/// It follows `JSONDecoder`'s conventions so that a model decodes the same either way: the key
/// strategies (`convertFromSnakeCase` converts JSON keys, not the keys of a `[String: …]`
/// dictionary), the date strategies, `Data` as Base64, `URL` from a string, integers from any
/// number that is integral and fits (`JSONValue.IntegerReading.integralNumbers`: the number
/// rules every decoder over a `JSONValue` shares), and the same `DecodingError` cases with the
/// same coding paths.
///
/// OpenAPIImport has a decoder of its own over the same value, for another reader: OpenAPIKit's
/// types, with types it decodes itself standing in and integers only from integer literals; it
/// reads numbers by the same rules.
final class JSONValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let context: DecodingContext
    /// True while decoding a `[String: …]` dictionary, whose keys are data, not property names.
    let literalKeys: Bool

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ value: JSONValue, codingPath: [any CodingKey], context: DecodingContext, literalKeys: Bool = false) {
        self.value = value
        self.codingPath = codingPath
        self.context = context
        self.literalKeys = literalKeys
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch value {
        case let .object(object):
            return KeyedDecodingContainer(KeyedContainer<Key>(object: object, decoder: self))
        case .null:
            throw DecodingError.valueNotFound(
                [String: Any].self,
                .init(
                    codingPath: codingPath, debugDescription: "Cannot get keyed decoding container -- found null value instead"))
        default:
            throw context.mismatch([String: Any].self, value, at: codingPath)
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch value {
        case let .array(array):
            return UnkeyedContainer(array: array, decoder: self)
        case .null:
            throw DecodingError.valueNotFound(
                [Any].self,
                .init(
                    codingPath: codingPath, debugDescription: "Cannot get unkeyed decoding container -- found null value instead"))
        default:
            throw context.mismatch([Any].self, value, at: codingPath)
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(decoder: self)
    }

    /// Decodes `value`, found at `path`, as `type`.
    func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, at path: [any CodingKey]) throws -> T {
        try context.decode(type, from: value, at: path)
    }
}

/// What every decoder of one decoding shares: the strategies and the key conversions made so far.
final class DecodingContext {
    let keyStrategy: JSONDecoder.KeyDecodingStrategy
    let dateStrategy: JSONDecoder.DateDecodingStrategy
    /// JSON key → property name under `convertFromSnakeCase`.
    private var converted: [String: String] = [:]
    /// Property name → the JSON key tried first for it (see `jsonKey(for:)`).
    private var candidates: [String: String?] = [:]
    private lazy var iso8601: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = .withInternetDateTime
        return formatter
    }()

    init(keyStrategy: JSONDecoder.KeyDecodingStrategy, dateStrategy: JSONDecoder.DateDecodingStrategy) {
        self.keyStrategy = keyStrategy
        self.dateStrategy = dateStrategy
    }

    // MARK: Values

    func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> T {
        // The types JSONDecoder treats specially come first (metatype identity: cheaper than
        // dynamic casts); everything else decodes itself.
        if T.self == String.self { return try string(value, at: path()) as! T }
        if T.self == Int.self { return try integer(Int.self, value, at: path()) as! T }
        if T.self == Bool.self { return try bool(value, at: path()) as! T }
        if T.self == Double.self { return try double(value, at: path()) as! T }
        if T.self == Date.self { return try date(value, at: path()) as! T }
        if T.self == URL.self { return try url(value, at: path()) as! T }
        if T.self == Data.self { return try data(value, at: path()) as! T }
        if T.self == Decimal.self { return try decimal(value, at: path()) as! T }
        // Only an object can be a `[String: …]` dictionary: the conformance check is skipped otherwise.
        var literalKeys = false
        if case .object = value { literalKeys = type is any StringKeyedDictionary.Type }
        return try T(from: JSONValueDecoder(value, codingPath: path(), context: self, literalKeys: literalKeys))
    }

    func bool(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        guard case let .bool(bool) = value else { throw unexpected(Bool.self, value, at: path()) }
        return bool
    }

    func string(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> String {
        guard case let .string(string) = value else { throw unexpected(String.self, value, at: path()) }
        return string
    }

    func double(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> Double {
        guard let double = value.doubleValue else { throw unexpected(Double.self, value, at: path()) }
        return double
    }

    func float(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> Float {
        // Not through `double(_:at:)`: a wrong type or a null is an error about a Float.
        switch value.floatValue {
        case let .number(float): return float
        case let .doesNotFit(written):
            throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: JSONValue.doesNotFitDescription(written, Float.self)))
        case .notANumber: throw unexpected(Float.self, value, at: path())
        }
    }

    func integer<T: FixedWidthInteger & Sendable>(_ type: T.Type, _ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> T {
        switch value.integer(type, reading: .integralNumbers) {
        case let .number(integer): return integer
        case let .doesNotFit(written):
            throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: JSONValue.doesNotFitDescription(written, type)))
        case .notANumber: throw unexpected(type, value, at: path())
        }
    }

    private func date(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> Date {
        // A null is an error about the Date, under every strategy (as JSONDecoder says), not
        // about the Double or String a strategy reads.
        if value == .null { throw unexpected(Date.self, value, at: path()) }
        switch dateStrategy {
        case .deferredToDate:
            return try Date(from: JSONValueDecoder(value, codingPath: path(), context: self))
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try double(value, at: path()))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try double(value, at: path()) / 1000)
        case .iso8601:
            let text = try string(value, at: path())
            // The parser JSONDecoder's `.iso8601` uses: native Swift, about 20 times faster on
            // Linux than `ISO8601DateFormatter` (ICU), which stays as the fallback so that
            // nothing it accepted is refused.
            if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
            guard let date = iso8601.date(from: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "Expected date string to be ISO8601-formatted."))
            }
            return date
        #if canImport(Darwin)
        // On Linux `.formatted` is a `.custom` strategy; on Apple platforms it is its own case.
        case let .formatted(formatter):
            let text = try string(value, at: path())
            guard let date = formatter.date(from: text) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: path(), debugDescription: "Date string does not match format expected by formatter."))
            }
            return date
        #endif
        case let .custom(read):
            return try read(JSONValueDecoder(value, codingPath: path(), context: self))
        @unknown default:
            return try Date(from: JSONValueDecoder(value, codingPath: path(), context: self))
        }
    }

    private func url(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> URL {
        let text = try string(value, at: path())
        guard let url = URL(string: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "Invalid URL string."))
        }
        return url
    }

    private func data(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> Data {
        let text = try string(value, at: path())
        guard let data = Data(base64Encoded: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "Encountered Data is not valid Base64."))
        }
        return data
    }

    private func decimal(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> Decimal {
        switch value {
        case let .int(int): return Decimal(int)
        case let .double(double): return Decimal(string: "\(double)") ?? Decimal(double)
        default: throw unexpected(Decimal.self, value, at: path())
        }
    }

    /// `valueNotFound` for a null, else `typeMismatch`.
    func unexpected(_ type: Any.Type, _ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) -> DecodingError {
        if value == .null {
            return .valueNotFound(type, .init(codingPath: path(), debugDescription: "Cannot get value of type \(type) -- found null value instead"))
        }
        return mismatch(type, value, at: path())
    }

    func mismatch(_ type: Any.Type, _ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) -> DecodingError {
        .typeMismatch(type, .init(codingPath: path(), debugDescription: "Expected to decode \(type) but found \(Self.describe(value)) instead."))
    }

    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "bool"
        case .int, .double: return "number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "a dictionary"
        }
    }

    // MARK: Keys

    /// The value of `object` that decodes the property `key` (at `path`), under the key strategy.
    func lookUp(_ key: String, in object: [String: JSONValue], literal: Bool, path: [any CodingKey]) -> JSONValue? {
        if literal { return object[key] }
        switch keyStrategy {
        case .useDefaultKeys:
            return object[key]
        case .convertFromSnakeCase:
            // The likely JSON key first (`firstName` ← `first_name`), then the key itself, then
            // every key: all checked by converting them as JSONDecoder does.
            let candidate = jsonKey(for: key)
            if let candidate, let value = object[candidate] { return value }
            if candidate != key, convertFromSnakeCase(key) == key, let value = object[key] { return value }
            for (jsonKey, value) in object where convertFromSnakeCase(jsonKey) == key { return value }
            return nil
        case let .custom(convert):
            for (jsonKey, value) in object where convert(path + [AnyKey(jsonKey)]).stringValue == key { return value }
            return nil
        @unknown default:
            return object[key]
        }
    }

    /// The property names the keys of `object` stand for, under the key strategy.
    func propertyNames(of object: [String: JSONValue], literal: Bool, path: [any CodingKey]) -> [String] {
        if literal { return Array(object.keys) }
        switch keyStrategy {
        case .convertFromSnakeCase: return object.keys.map(convertFromSnakeCase)
        case let .custom(convert): return object.keys.map { convert(path + [AnyKey($0)]).stringValue }
        default: return Array(object.keys)
        }
    }

    /// `JSONDecoder`'s `convertFromSnakeCase`: leading and trailing underscores kept, the words
    /// between joined in camel case (the first lowercased, the others capitalized).
    func convertFromSnakeCase(_ key: String) -> String {
        if let known = converted[key] { return known }
        let result = KeyCase.camelCase(key)
        converted[key] = result
        return result
    }

    /// The JSON key that most likely decodes the property `key` under `convertFromSnakeCase`
    /// (`first_name` for `firstName`; `key` itself when it has no capitals), checked by
    /// converting it back; nil when neither converts to `key`. Cached per property name.
    private func jsonKey(for key: String) -> String? {
        if let known = candidates[key] { return known }
        let snake = KeyCase.snakeCase(key)
        let candidate: String? = convertFromSnakeCase(snake) == key ? snake : (convertFromSnakeCase(key) == key ? key : nil)
        candidates[key] = candidate
        return candidate
    }
}

/// Marks `[String: …]` dictionaries, whose keys `JSONDecoder` does not convert.
protocol StringKeyedDictionary {}
extension Dictionary: StringKeyedDictionary where Key == String {}

/// A coding key made from a string or an index.
struct AnyKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(_ string: String) {
        stringValue = string
        intValue = nil
    }

    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    init?(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { self.init(index: intValue) }
}

// MARK: - Containers

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: [String: JSONValue]
    let decoder: JSONValueDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }
    private var context: DecodingContext { decoder.context }

    var allKeys: [Key] {
        context.propertyNames(of: object, literal: decoder.literalKeys, path: codingPath).compactMap(Key.init(stringValue:))
    }

    func contains(_ key: Key) -> Bool { find(key) != nil }

    private func find(_ key: Key) -> JSONValue? {
        context.lookUp(key.stringValue, in: object, literal: decoder.literalKeys, path: codingPath)
    }

    private func require(_ key: Key) throws -> JSONValue {
        guard let value = find(key) else {
            throw DecodingError.keyNotFound(
                key,
                .init(
                    codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return value
    }

    private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    func decodeNil(forKey key: Key) throws -> Bool { try require(key) == .null }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try context.bool(require(key), at: path(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try context.string(require(key), at: path(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try context.double(require(key), at: path(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try context.float(require(key), at: path(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try context.integer(type, require(key), at: path(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try context.integer(type, require(key), at: path(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try context.integer(type, require(key), at: path(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try context.integer(type, require(key), at: path(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try context.integer(type, require(key), at: path(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try context.integer(type, require(key), at: path(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try context.integer(type, require(key), at: path(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try context.integer(type, require(key), at: path(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try context.integer(type, require(key), at: path(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try context.integer(type, require(key), at: path(key)) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try context.decode(type, from: require(key), at: path(key))
    }

    /// One look-up instead of the default's three (`contains`, `decodeNil`, `decode`).
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = find(key), value != .null else { return nil }
        return try context.decode(type, from: value, at: path(key))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try JSONValueDecoder(require(key), codingPath: path(key), context: context).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try JSONValueDecoder(require(key), codingPath: path(key), context: context).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let key = AnyKey("super")
        return JSONValueDecoder(object["super"] ?? .null, codingPath: codingPath + [key], context: context)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONValueDecoder(find(key) ?? .null, codingPath: path(key), context: context)
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let array: [JSONValue]
    let decoder: JSONValueDecoder
    private(set) var currentIndex = 0

    init(array: [JSONValue], decoder: JSONValueDecoder) {
        self.array = array
        self.decoder = decoder
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { array.count }
    var isAtEnd: Bool { currentIndex >= array.count }

    /// The next element and its path; the index advances only when `read` succeeds.
    private mutating func next<T>(_ type: Any.Type, _ read: (DecodingContext, JSONValue, [any CodingKey]) throws -> T) throws -> T {
        let path = codingPath + [AnyKey(index: currentIndex)]
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "Unkeyed container is at end."))
        }
        let result = try read(decoder.context, array[currentIndex], path)
        currentIndex += 1
        return result
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any?.self,
                .init(
                    codingPath: codingPath + [AnyKey(index: currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        guard array[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) { try $0.bool($1, at: $2) } }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) { try $0.string($1, at: $2) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) { try $0.double($1, at: $2) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) { try $0.float($1, at: $2) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) { try $0.integer(type, $1, at: $2) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) { try $0.integer(type, $1, at: $2) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) { try $0.integer(type, $1, at: $2) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) { try $0.integer(type, $1, at: $2) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) { try $0.integer(type, $1, at: $2) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) { try $0.integer(type, $1, at: $2) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) { try $0.integer(type, $1, at: $2) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) { try $0.integer(type, $1, at: $2) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) { try $0.integer(type, $1, at: $2) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) { try $0.integer(type, $1, at: $2) } }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try next(type) { try $0.decode(type, from: $1, at: $2) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next(type) { try JSONValueDecoder($1, codingPath: $2, context: $0).container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next([Any].self) { try JSONValueDecoder($1, codingPath: $2, context: $0).unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        try next(Any.self) { JSONValueDecoder($1, codingPath: $2, context: $0) }
    }
}

private struct SingleValueContainer: SingleValueDecodingContainer {
    let decoder: JSONValueDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }
    private var value: JSONValue { decoder.value }
    private var context: DecodingContext { decoder.context }

    func decodeNil() -> Bool { value == .null }

    func decode(_ type: Bool.Type) throws -> Bool { try context.bool(value, at: codingPath) }
    func decode(_ type: String.Type) throws -> String { try context.string(value, at: codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try context.double(value, at: codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try context.float(value, at: codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try context.integer(type, value, at: codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try context.integer(type, value, at: codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try context.integer(type, value, at: codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try context.integer(type, value, at: codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try context.integer(type, value, at: codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try context.integer(type, value, at: codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try context.integer(type, value, at: codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try context.integer(type, value, at: codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try context.integer(type, value, at: codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try context.integer(type, value, at: codingPath) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try context.decode(type, from: value, at: codingPath)
    }
}
