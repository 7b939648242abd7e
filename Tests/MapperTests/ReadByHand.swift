import Foundation

/// A primitive read through its container's own `decode` overload (`decode(Int8.self, …)`), not
/// the generic one a synthesized `init(from:)` of a generic model would call.
protocol ReadByHand: Decodable, Sendable {}

extension Bool: ReadByHand {}
extension String: ReadByHand {}
extension Double: ReadByHand {}
extension Float: ReadByHand {}
extension Int: ReadByHand {}
extension Int8: ReadByHand {}
extension Int16: ReadByHand {}
extension Int32: ReadByHand {}
extension Int64: ReadByHand {}
extension UInt: ReadByHand {}
extension UInt8: ReadByHand {}
extension UInt16: ReadByHand {}
extension UInt32: ReadByHand {}
extension UInt64: ReadByHand {}

/// `T` from the key `value` of an object.
struct InKeyed<T: ReadByHand>: Decodable, CustomStringConvertible {
    let value: T
    var description: String { "\(value)" }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let key: Key = "value"
        value =
            switch T.self {
            case is Bool.Type: try container.decode(Bool.self, forKey: key) as! T
            case is String.Type: try container.decode(String.self, forKey: key) as! T
            case is Double.Type: try container.decode(Double.self, forKey: key) as! T
            case is Float.Type: try container.decode(Float.self, forKey: key) as! T
            case is Int.Type: try container.decode(Int.self, forKey: key) as! T
            case is Int8.Type: try container.decode(Int8.self, forKey: key) as! T
            case is Int16.Type: try container.decode(Int16.self, forKey: key) as! T
            case is Int32.Type: try container.decode(Int32.self, forKey: key) as! T
            case is Int64.Type: try container.decode(Int64.self, forKey: key) as! T
            case is UInt.Type: try container.decode(UInt.self, forKey: key) as! T
            case is UInt8.Type: try container.decode(UInt8.self, forKey: key) as! T
            case is UInt16.Type: try container.decode(UInt16.self, forKey: key) as! T
            case is UInt32.Type: try container.decode(UInt32.self, forKey: key) as! T
            case is UInt64.Type: try container.decode(UInt64.self, forKey: key) as! T
            default: try container.decode(T.self, forKey: key)
            }
    }
}

/// `T` from the only element of an array. The container's index must stay where it was when
/// the read fails and move past the element when it succeeds: otherwise decoding fails with
/// `dataCorrupted` at the path `["index"]`.
struct InUnkeyed<T: ReadByHand>: Decodable, CustomStringConvertible {
    let value: T
    var description: String { "\(value)" }

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        do {
            value = try Self.read(&container)
        } catch {
            guard container.currentIndex == 0, !container.isAtEnd else { throw Self.indexError }
            throw error
        }
        guard container.currentIndex == 1, container.isAtEnd, container.count == 1 else { throw Self.indexError }
    }

    private static var indexError: DecodingError {
        .dataCorrupted(.init(codingPath: [Key(stringValue: "index")], debugDescription: "the index moved wrongly"))
    }

    private static func read(_ container: inout any UnkeyedDecodingContainer) throws -> T {
        switch T.self {
        case is Bool.Type: try container.decode(Bool.self) as! T
        case is String.Type: try container.decode(String.self) as! T
        case is Double.Type: try container.decode(Double.self) as! T
        case is Float.Type: try container.decode(Float.self) as! T
        case is Int.Type: try container.decode(Int.self) as! T
        case is Int8.Type: try container.decode(Int8.self) as! T
        case is Int16.Type: try container.decode(Int16.self) as! T
        case is Int32.Type: try container.decode(Int32.self) as! T
        case is Int64.Type: try container.decode(Int64.self) as! T
        case is UInt.Type: try container.decode(UInt.self) as! T
        case is UInt8.Type: try container.decode(UInt8.self) as! T
        case is UInt16.Type: try container.decode(UInt16.self) as! T
        case is UInt32.Type: try container.decode(UInt32.self) as! T
        case is UInt64.Type: try container.decode(UInt64.self) as! T
        default: try container.decode(T.self)
        }
    }
}

/// `T` as the whole document, from a single-value container.
struct InSingle<T: ReadByHand>: Decodable, CustomStringConvertible {
    let value: T
    var description: String { "\(value)" }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        value =
            switch T.self {
            case is Bool.Type: try container.decode(Bool.self) as! T
            case is String.Type: try container.decode(String.self) as! T
            case is Double.Type: try container.decode(Double.self) as! T
            case is Float.Type: try container.decode(Float.self) as! T
            case is Int.Type: try container.decode(Int.self) as! T
            case is Int8.Type: try container.decode(Int8.self) as! T
            case is Int16.Type: try container.decode(Int16.self) as! T
            case is Int32.Type: try container.decode(Int32.self) as! T
            case is Int64.Type: try container.decode(Int64.self) as! T
            case is UInt.Type: try container.decode(UInt.self) as! T
            case is UInt8.Type: try container.decode(UInt8.self) as! T
            case is UInt16.Type: try container.decode(UInt16.self) as! T
            case is UInt32.Type: try container.decode(UInt32.self) as! T
            case is UInt64.Type: try container.decode(UInt64.self) as! T
            default: try container.decode(T.self)
            }
    }
}
