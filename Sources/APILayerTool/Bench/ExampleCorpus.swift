import Foundation
import OpenAPIImport
import Validator

/// The example responses of an OpenAPI description, grouped by the schema they are answers of,
/// with that schema as the ground truth: what `apilayer bench infer` infers templates from and
/// mutates.
///
/// A description such as GitHub's gives one example per operation, so the responses of one
/// method are pooled by the component schema the method returns: every example, of any
/// operation, whose top-level value (or, for a list, each element) is that schema. Duplicates
/// count once.
struct ExampleCorpus {
    /// The description's JSON.
    let root: JSONValue
    /// The distinct example values of each component schema (`#/components/schemas/issue`), in
    /// the description's order.
    private(set) var pools: [String: [JSONValue]] = [:]

    /// One operation whose success response is a component schema or a list of one.
    struct Method {
        /// The operation's template name (its operationId).
        var name: String
        /// The component schema of the response (of each element, for a list).
        var reference: String
        /// Whether the response is a list of the schema.
        var isList: Bool
    }

    private(set) var methods: [Method] = []

    init(root: JSONValue) {
        self.root = root
        var seen: [String: Set<JSONValue>] = [:]
        for (_, item) in (root.objectFields?["paths"]?.objectFields ?? [:]).sorted(by: { $0.key < $1.key }) {
            for method in ["get", "put", "post", "patch", "delete"] {
                guard let operation = item.objectFields?[method]?.objectFields,
                    let name = operation["operationId"].flatMap({ if case let .string(text) = $0 { text } else { nil } }),
                    let (schema, examples) = successContent(operation)
                else { continue }
                let reference: String
                let isList: Bool
                if let direct = schema.objectFields?["$ref"], case let .string(text) = direct {
                    (reference, isList) = (text, false)
                } else if schema.objectFields?["type"] == .string("array"),
                    case let .string(text)? = schema.objectFields?["items"]?.objectFields?["$ref"]
                {
                    (reference, isList) = (text, true)
                } else {
                    continue
                }
                guard reference.hasPrefix("#/components/schemas/") else { continue }
                methods.append(Method(name: name, reference: reference, isList: isList))
                for example in examples {
                    let values = isList ? (example.arrayValue ?? []) : [example]
                    for value in values where seen[reference, default: []].insert(value).inserted {
                        pools[reference, default: []].append(value)
                    }
                }
            }
        }
    }

    /// The schema and example values of an operation's lowest 2xx `application/json` response.
    private func successContent(_ operation: [String: JSONValue]) -> (JSONValue, [JSONValue])? {
        guard let responses = operation["responses"]?.objectFields else { return nil }
        for status in responses.keys.sorted() where status.hasPrefix("2") {
            guard let response = resolve(responses[status]!),
                let media = response.objectFields?["content"]?.objectFields?["application/json"]?.objectFields,
                let schema = media["schema"]
            else { continue }
            var examples: [JSONValue] = []
            if let example = media["example"] { examples.append(example) }
            for (_, entry) in (media["examples"]?.objectFields ?? [:]).sorted(by: { $0.key < $1.key }) {
                if let value = resolve(entry)?.objectFields?["value"] { examples.append(value) }
            }
            return (schema, examples)
        }
        return nil
    }

    /// `value` with local `$ref`s followed (at most 32 steps); nil for a reference to nowhere.
    func resolve(_ value: JSONValue) -> JSONValue? {
        var current = value
        for _ in 0..<32 {
            guard case let .string(reference)? = current.objectFields?["$ref"] else { return current }
            guard reference.hasPrefix("#"), let pointer = JSONPointer(String(reference.dropFirst())),
                let target = pointer.resolve(in: root)
            else { return nil }
            current = target
        }
        return nil
    }

    // MARK: The schema as ground truth

    /// What a schema says at one place, references followed and `allOf` merged; nil where it
    /// says something the mutations do not reason about (`oneOf`, `anyOf`, `not`).
    struct Place {
        var types: Set<String> = []
        var nullable = false
        var required: Set<String> = []
        var properties: [String: JSONValue] = [:]
        var items: JSONValue?
        var minLength = 0
    }

    func place(_ schema: JSONValue, depth: Int = 0) -> Place? {
        guard depth < 32, let fields = resolve(schema)?.objectFields else { return nil }
        if fields["oneOf"] != nil || fields["anyOf"] != nil || fields["not"] != nil { return nil }
        var place = Place()
        for part in fields["allOf"]?.arrayValue ?? [] {
            guard let merged = self.place(part, depth: depth + 1) else { return nil }
            place.types.formUnion(merged.types)
            place.nullable = place.nullable || merged.nullable
            place.required.formUnion(merged.required)
            place.properties.merge(merged.properties) { first, _ in first }
            place.items = place.items ?? merged.items
            place.minLength = max(place.minLength, merged.minLength)
        }
        switch fields["type"] {
        case let .string(type)?: place.types.insert(type)
        case let .array(types)?:
            for case let .string(type) in types {
                if type == "null" { place.nullable = true } else { place.types.insert(type) }
            }
        default: break
        }
        if fields["nullable"] == .bool(true) { place.nullable = true }
        for case let .string(name) in fields["required"]?.arrayValue ?? [] { place.required.insert(name) }
        for (key, value) in fields["properties"]?.objectFields ?? [:] { place.properties[key] = value }
        if let items = fields["items"] { place.items = items }
        if case let .int(length)? = fields["minLength"] { place.minLength = max(place.minLength, length) }
        if place.types.isEmpty, !place.properties.isEmpty { place.types.insert("object") }
        return place
    }

    /// One change to a response that its schema forbids.
    struct Mutation {
        enum Kind: String, CaseIterable {
            case requiredKeyRemoved, typeChanged, nullWhereForbidden, emptyString
        }

        var kind: Kind
        var path: [String]
        /// The new value; nil removes the key.
        var replacement: JSONValue?
    }

    /// Every single mutation of `value` its schema forbids: a required key removed, a value
    /// of another type, `null` where the schema does not allow it, `""` where it requires a
    /// character. Elements of arrays are mutated through their first element.
    func mutations(of value: JSONValue, schema: JSONValue, path: [String] = [], depth: Int = 0) -> [Mutation] {
        guard depth < 32, let place = place(schema) else { return [] }
        var found: [Mutation] = []
        switch value {
        case let .object(members):
            for (key, propertySchema) in place.properties.sorted(by: { $0.key < $1.key }) {
                guard let member = members[key] else { continue }
                let at = path + [key]
                if place.required.contains(key) { found.append(Mutation(kind: .requiredKeyRemoved, path: at)) }
                found += mutations(ofMember: member, schema: propertySchema, at: at, depth: depth)
            }
        case let .array(elements):
            if let items = place.items, let first = elements.first {
                found += mutations(ofMember: first, schema: items, at: path + ["0"], depth: depth)
            }
        default:
            break
        }
        return found
    }

    private func mutations(ofMember member: JSONValue, schema: JSONValue, at path: [String], depth: Int) -> [Mutation] {
        guard let place = place(schema), member != .null else { return [] }
        var found: [Mutation] = []
        if place.types.count == 1, let type = place.types.first, let other = Self.valueOfAnotherType(than: type) {
            found.append(Mutation(kind: .typeChanged, path: path, replacement: other))
        }
        if !place.nullable, !place.types.isEmpty { found.append(Mutation(kind: .nullWhereForbidden, path: path, replacement: .null)) }
        if place.minLength >= 1, case .string = member { found.append(Mutation(kind: .emptyString, path: path, replacement: .string(""))) }
        return found + mutations(of: member, schema: schema, path: path, depth: depth + 1)
    }

    private static func valueOfAnotherType(than type: String) -> JSONValue? {
        switch type {
        case "string": return .int(12_345)
        case "integer", "number": return .string("12345")
        case "boolean": return .string("true")
        case "object": return .array([])
        case "array": return .object([:])
        default: return nil
        }
    }
}

extension JSONValue {
    /// This value with the value at `path` replaced by `replacement`, or removed when it is nil.
    func applying(_ mutation: ExampleCorpus.Mutation) -> JSONValue {
        replacing(at: mutation.path[...], with: mutation.replacement)
    }

    private func replacing(at path: ArraySlice<String>, with replacement: JSONValue?) -> JSONValue {
        guard let token = path.first else { return replacement ?? .null }
        switch self {
        case var .object(members):
            if path.count == 1, replacement == nil {
                members[token] = nil
            } else if let member = members[token] {
                members[token] = member.replacing(at: path.dropFirst(), with: replacement)
            }
            return .object(members)
        case var .array(elements):
            guard let index = Int(token), elements.indices.contains(index) else { return self }
            elements[index] = elements[index].replacing(at: path.dropFirst(), with: replacement)
            return .array(elements)
        default:
            return self
        }
    }
}
