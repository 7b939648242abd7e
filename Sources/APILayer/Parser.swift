import Validator

/// Pulls values out of deep JSON by path, with errors that say where the path broke.
///
/// A path is dot-separated: object keys, and array indexes as numbers
/// (`response.items.0.photo_100`).
///
/// ```swift
/// let json = try JSONValue(parsing: body)
/// let firstID = try Parser.int(at: "response.items.0.id", in: json)
/// ```
public enum Parser {
    /// The value at `path` (the whole value for an empty path).
    ///
    /// - Throws: `ParserError.missing` naming the part of the path that exists.
    public static func value(at path: String, in json: JSONValue) throws(ParserError) -> JSONValue {
        var current = json
        var walked: [String] = []
        for step in path.split(separator: ".", omittingEmptySubsequences: true).map(String.init) {
            switch current {
            case let .object(object):
                guard let next = object[step] else { throw ParserError.missing(path: path, foundUpTo: walked.joined(separator: ".")) }
                current = next
            case let .array(array):
                guard let index = Int(step), array.indices.contains(index) else {
                    throw ParserError.missing(path: path, foundUpTo: walked.joined(separator: "."))
                }
                current = array[index]
            default:
                throw ParserError.missing(path: path, foundUpTo: walked.joined(separator: "."))
            }
            walked.append(step)
        }
        return current
    }

    /// The integer at `path`.
    public static func int(at path: String, in json: JSONValue) throws(ParserError) -> Int {
        let found = try value(at: path, in: json)
        guard case let .int(number) = found else { throw ParserError.wrongType(path: path, expected: "integer", found: found) }
        return number
    }

    /// The number at `path` (an integer or not).
    public static func double(at path: String, in json: JSONValue) throws(ParserError) -> Double {
        let found = try value(at: path, in: json)
        switch found {
        case let .int(number): return Double(number)
        case let .double(number): return number
        default: throw ParserError.wrongType(path: path, expected: "number", found: found)
        }
    }

    /// The string at `path`.
    public static func string(at path: String, in json: JSONValue) throws(ParserError) -> String {
        let found = try value(at: path, in: json)
        guard case let .string(text) = found else { throw ParserError.wrongType(path: path, expected: "string", found: found) }
        return text
    }

    /// The boolean at `path` (never a number: `1` is not `true`).
    public static func bool(at path: String, in json: JSONValue) throws(ParserError) -> Bool {
        let found = try value(at: path, in: json)
        guard case let .bool(flag) = found else { throw ParserError.wrongType(path: path, expected: "boolean", found: found) }
        return flag
    }

    /// The array at `path`.
    public static func array(at path: String, in json: JSONValue) throws(ParserError) -> [JSONValue] {
        let found = try value(at: path, in: json)
        guard case let .array(elements) = found else { throw ParserError.wrongType(path: path, expected: "array", found: found) }
        return elements
    }

    /// The object at `path`.
    public static func object(at path: String, in json: JSONValue) throws(ParserError) -> [String: JSONValue] {
        let found = try value(at: path, in: json)
        guard case let .object(members) = found else { throw ParserError.wrongType(path: path, expected: "object", found: found) }
        return members
    }
}

/// Why a path did not lead to the wanted value.
public enum ParserError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing at `path`; `foundUpTo` is the part of it that exists.
    case missing(path: String, foundUpTo: String)
    /// A value of another type at `path`.
    case wrongType(path: String, expected: String, found: JSONValue)

    /// One readable line.
    public var description: String {
        switch self {
        case let .missing(path, found):
            return "nothing at '\(path)' (the path exists up to '\(found.isEmpty ? "(root)" : found)')"
        case let .wrongType(path, expected, found):
            return "'\(path)': expected \(expected), found \(Self.typeName(found))"
        }
    }

    private static func typeName(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "boolean"
        case .int: return "integer"
        case .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}
