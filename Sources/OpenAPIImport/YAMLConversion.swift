import Validator
import Yams

/// YAML (1.1 scalars, as libyaml resolves them) read into `JSONValue`.
enum YAMLConversion {
    /// Why a YAML document cannot be a JSON value.
    struct Failure: Error {
        let reason: String
    }

    /// The most JSON values a YAML document of `byteCount` bytes may expand to. Without aliases
    /// a document has fewer values than bytes; anchors and aliases can describe an exponentially
    /// large tree in a few lines ("billion laughs"), so past this, reading stops.
    static func maxValues(byteCount: Int) -> Int { max(100_000, byteCount) }

    /// The first document of `text` as a JSON value.
    static func json(fromYAML text: String) throws -> JSONValue {
        if let key = YAMLAliasKeys.first(in: text) {
            // Refused before Yams composes: it hashes a mapping's keys whole, an alias's tree too.
            throw Failure(
                reason: "line \(key.line): an alias (*\(key.name)) is used as a mapping key; an OpenAPI description needs none, "
                    + "and one that names a large tree would take the import exponential time")
        }
        guard let node = try Yams.compose(yaml: text) else { throw Failure(reason: "the document is empty") }
        let limit = maxValues(byteCount: text.utf8.count)
        var budget = limit
        do { return try convert(node, depth: 0, budget: &budget) } catch is Failure where budget < 0 {
            throw Failure(reason: "the document expands to more than \(limit) values (aliases?)")
        }
    }

    private static func convert(_ node: Node, depth: Int, budget: inout Int) throws -> JSONValue {
        budget -= 1
        guard budget >= 0 else { throw Failure(reason: "too many values") }
        guard depth < 256 else { throw Failure(reason: "the document nests deeper than 256 levels") }
        switch node {
        case let .scalar(scalar):
            return scalarValue(node, text: scalar.string)
        case let .mapping(mapping):
            var object: [String: JSONValue] = [:]
            object.reserveCapacity(mapping.count)
            for (key, value) in mapping {
                guard case let .scalar(keyScalar) = key else { throw Failure(reason: "a mapping key is not a scalar") }
                object[keyScalar.string] = try convert(value, depth: depth + 1, budget: &budget)
            }
            return .object(object)
        case let .sequence(sequence):
            var array: [JSONValue] = []
            array.reserveCapacity(sequence.count)
            for element in sequence { array.append(try convert(element, depth: depth + 1, budget: &budget)) }
            return .array(array)
        case .alias:
            throw Failure(reason: "an alias that was not resolved")
        }
    }

    /// A scalar by its resolved tag; timestamps and everything else stay strings.
    private static func scalarValue(_ node: Node, text: String) -> JSONValue {
        switch node.tag.rawValue {
        case Tag.Name.null.rawValue: return .null
        case Tag.Name.bool.rawValue: return node.bool.map(JSONValue.bool) ?? .string(text)
        case Tag.Name.int.rawValue:
            if let value = node.int { return .int(value) }
            return node.float.map(JSONValue.double) ?? .string(text)
        case Tag.Name.float.rawValue: return node.float.map(JSONValue.double) ?? .string(text)
        default: return .string(text)
        }
    }
}
