import Foundation
import OpenAPIKit
import Validator

/// A part of the description: OpenAPIKit's value and the JSON it was read from (where the
/// description's own spelling of keys, and its schemas, are read).
struct Located<Value> {
    /// OpenAPIKit's value.
    let value: Value
    /// The JSON of the same place.
    let json: JSONValue
}

/// Follows the references of one description: OpenAPIKit reads each `$ref` (into the components,
/// elsewhere in the document, or into another document) and its `Components` hold what a
/// component reference names.
struct ReferenceResolver {
    let root: JSONValue
    let components: OpenAPI.Components
    /// The names of the schemas in `components`, taken once: OpenAPIKit checks a name's
    /// characters (with a `CharacterSet`) each time it looks one up, and schemas are looked up
    /// at every `$ref` a template passes.
    let schemaNames: Set<String>
    /// Decodes what a reference outside the components (`#/paths/~1items`) points to.
    let decoder: JSONValueDecoder

    init(_ description: OpenAPIDescription) {
        root = description.root
        components = description.document.components
        schemaNames = Set(components.schemas.keys.map(\.rawValue))
        decoder = OpenAPIKitReading.decoder
    }

    /// What a schema reference leads to.
    enum Resolution {
        case found(JSONValue)
        /// `#/…` that names nothing in the document.
        case nowhere
        /// A reference into another document (`other.yaml#/Item`, `https://…`): not followed.
        case external
    }

    /// The JSON of the schema `reference` names: a component OpenAPIKit's components hold (the
    /// schema's JSON is at the same place), or any other place of the document (a JSON Pointer).
    func resolve(_ reference: String) -> Resolution {
        guard reference.hasPrefix("#") else { return .external }
        if case let .component(name)? = JSONReference<JSONSchema>.InternalReference(rawValue: reference), !schemaNames.contains(name) {
            return .nowhere
        }
        return json(at: reference).map(Resolution.found) ?? .nowhere
    }

    /// The JSON the fragment `reference` (`#/components/…`) points to, or nil.
    private func json(at reference: String) -> JSONValue? {
        let fragment = String(reference.dropFirst())
        let decoded = fragment.removingPercentEncoding ?? fragment
        if decoded.isEmpty { return root }
        guard let pointer = JSONPointer(decoded) else { return nil }
        return pointer.resolve(in: root)
    }

    /// Follows `value`'s reference chain (a path item, response, parameter, example or request
    /// body given by reference) to the value itself; at most 32 hops, so a cycle of references
    /// ends. `json` is the JSON `value` was read from.
    func follow<T: ComponentDictionaryLocatable & Decodable>(_ value: Either<OpenAPI.Reference<T>, T>, json: JSONValue)
        -> Result<Located<T>, FollowFailure>
    {
        var current = value
        var currentJSON = json
        var seen: [String] = []
        while case let .a(reference) = current {
            let text = currentJSON.objectFields?["$ref"]?.stringValue ?? reference.jsonReference.absoluteString
            guard !seen.contains(text), seen.count < 32 else { return .failure(.cycle(seen + [text])) }
            seen.append(text)
            guard case let .internal(place) = reference.jsonReference else { return .failure(.external(text)) }
            switch place {
            case .component:
                guard let next = try? components.lookupOnce(reference) else { return .failure(.nowhere(text)) }
                current = next
                currentJSON = self.json(at: text) ?? .null
            case .path:
                guard let target = self.json(at: text) else { return .failure(.nowhere(text)) }
                guard let next = try? decoder.decode(Either<OpenAPI.Reference<T>, T>.self, from: target) else {
                    return .failure(.notA(text, kind: T.openAPIComponentsKey))
                }
                current = next
                currentJSON = target
            }
        }
        guard case let .b(found) = current else { return .failure(.nowhere(seen.last ?? "")) }
        return .success(Located(value: found, json: currentJSON))
    }

    /// Why `follow` stopped.
    enum FollowFailure: Error, CustomStringConvertible {
        case nowhere(String)
        case external(String)
        case cycle([String])
        /// The reference points to something that is not of the kind (a components key,
        /// `responses`) expected there.
        case notA(String, kind: String)

        var description: String {
            switch self {
            case let .nowhere(reference): return "$ref \(reference) points to nothing in the description"
            case let .external(reference): return "$ref \(reference) points into another document, which is not read"
            case let .cycle(references): return "the references \(references.joined(separator: " → ")) form a cycle"
            case let .notA(reference, kind): return "$ref \(reference) points to something OpenAPIKit cannot read as one of the \(kind)"
            }
        }
    }
}
