import Foundation
import JSONCore

/// Turns JSON into Codable models.
///
/// ```swift
/// struct User: Decodable { let id: Int; let firstName: String }
/// let users = try Mapper.map([User].self, from: body, at: "response")
/// ```
///
/// Keys are converted from `snake_case` and dates read as seconds since 1970 unless the
/// configuration says otherwise. A failure names the JSON path where decoding stopped.
public enum Mapper {
    /// How JSON is turned into models.
    public struct Configuration: @unchecked Sendable {
        /// How JSON keys map to property names (default: from snake_case).
        public var keyDecodingStrategy: JSONDecoder.KeyDecodingStrategy = .convertFromSnakeCase
        /// How dates are read (default: seconds since 1970).
        public var dateDecodingStrategy: JSONDecoder.DateDecodingStrategy = .secondsSince1970

        /// The defaults.
        public init() {}

        func decoder() -> JSONDecoder {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = keyDecodingStrategy
            decoder.dateDecodingStrategy = dateDecodingStrategy
            return decoder
        }
    }

    /// Decodes `type` from JSON `data`, optionally from the value at `keyPath` (dot-separated
    /// object keys, e.g. `response.items`).
    ///
    /// Without a key path the bytes go to `JSONDecoder`; with one they are parsed once into a
    /// `JSONValue` and the value at the path is decoded directly (nothing is serialized again).
    /// - Throws: `MapperError` naming the path where it failed.
    public static func map<Model: Decodable>(
        _ type: Model.Type,
        from data: Data,
        at keyPath: String? = nil,
        configuration: Configuration = Configuration()
    ) throws -> Model {
        if let keyPath, !keyPath.isEmpty {
            let root: JSONValue
            do { root = try JSONValue(parsing: data) } catch {
                throw MapperError.notJSON(reason: String(describing: error))
            }
            return try map(type, from: root, at: keyPath, configuration: configuration)
        }
        do {
            return try configuration.decoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw MapperError(error, prefix: nil)
        } catch {
            throw MapperError.notJSON(reason: String(describing: error))
        }
    }

    /// Decodes `type` from a parsed JSON value, optionally from the value at `keyPath`.
    ///
    /// The value is decoded directly, with `JSONDecoder`'s conventions and the configuration's
    /// key and date strategies: a response parsed once for validation is mapped without being
    /// serialized and parsed again.
    ///
    /// ```swift
    /// let json = try JSONValue(parsing: body)
    /// let users = try Mapper.map([User].self, from: json, at: "response.items")
    /// ```
    /// - Throws: `MapperError` naming the path where it failed.
    public static func map<Model: Decodable>(
        _ type: Model.Type,
        from json: JSONValue,
        at keyPath: String? = nil,
        configuration: Configuration = Configuration()
    ) throws -> Model {
        let prefix = keyPath?.isEmpty == false ? keyPath : nil
        let value = try prefix.map { try Self.value(at: $0, in: json) } ?? json
        let context = DecodingContext(
            keyStrategy: configuration.keyDecodingStrategy,
            dateStrategy: configuration.dateDecodingStrategy)
        do {
            return try context.decode(type, from: value, at: [])
        } catch let error as DecodingError {
            throw MapperError(error, prefix: prefix)
        }
    }

    /// The value at a dot-separated key path.
    /// - Throws: `MapperError.missingKeyPath` naming the part of the path that exists.
    public static func value(at keyPath: String, in json: JSONValue) throws -> JSONValue {
        var current = json
        var walked: [String] = []
        for key in keyPath.split(separator: ".").map(String.init) {
            guard case let .object(object) = current, let next = object[key] else {
                throw MapperError.missingKeyPath(keyPath, foundUpTo: walked.joined(separator: "."))
            }
            walked.append(key)
            current = next
        }
        return current
    }
}

/// Why JSON could not be turned into a model. The description names the JSON path.
public enum MapperError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not JSON.
    case notJSON(reason: String)
    /// The key path does not lead to a value; `foundUpTo` is the part that exists.
    case missingKeyPath(String, foundUpTo: String)
    /// A required key is absent at `path`.
    case missingKey(path: String, key: String)
    /// The value at `path` has another type than the model expects.
    case typeMismatch(path: String, expected: String)
    /// The value at `path` is null but the model needs one.
    case missingValue(path: String, expected: String)
    /// The value at `path` is of the right type but not acceptable.
    case invalidValue(path: String, reason: String)

    init(_ error: DecodingError, prefix: String?) {
        func path(_ codingPath: [any CodingKey]) -> String {
            let parts = (prefix.map { [$0] } ?? []) + codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return parts.isEmpty ? "(root)" : parts.joined(separator: ".")
        }
        switch error {
        case let .keyNotFound(key, context):
            self = .missingKey(path: path(context.codingPath), key: key.stringValue)
        case let .typeMismatch(type, context):
            self = .typeMismatch(path: path(context.codingPath), expected: String(describing: type))
        case let .valueNotFound(type, context):
            self = .missingValue(path: path(context.codingPath), expected: String(describing: type))
        case let .dataCorrupted(context):
            self = .invalidValue(path: path(context.codingPath), reason: context.debugDescription)
        @unknown default:
            self = .invalidValue(path: "(unknown)", reason: String(describing: error))
        }
    }

    /// One readable line.
    public var description: String {
        switch self {
        case let .notJSON(reason): return "not JSON: \(reason)"
        case let .missingKeyPath(keyPath, found): return "key path '\(keyPath)' not found (exists up to '\(found)')"
        case let .missingKey(path, key): return "\(path): missing key '\(key)'"
        case let .typeMismatch(path, expected): return "\(path): expected \(expected)"
        case let .missingValue(path, expected): return "\(path): null where \(expected) is needed"
        case let .invalidValue(path, reason): return "\(path): \(reason)"
        }
    }
}
