import Foundation
import Validator

/// Resolves local `$ref`s (`#/components/schemas/Item`) inside one description.
struct ReferenceResolver: Sendable {
    let root: JSONValue

    /// What a reference leads to.
    enum Resolution {
        case found(JSONValue)
        /// `#/…` that names nothing in the document.
        case nowhere
        /// A reference into another document (`other.yaml#/Item`, `https://…`): not followed.
        case external
    }

    /// The value `reference` names.
    func resolve(_ reference: String) -> Resolution {
        guard reference.hasPrefix("#") else { return .external }
        let fragment = String(reference.dropFirst())
        let decoded = fragment.removingPercentEncoding ?? fragment
        if decoded.isEmpty { return .found(root) }
        guard let pointer = JSONPointer(decoded), let value = pointer.resolve(in: root) else { return .nowhere }
        return .found(value)
    }

    /// Follows `value`'s `$ref` chain (a response, parameter, example or request body given by
    /// reference) to the value itself; at most 32 hops, so a cycle of references ends.
    func follow(_ value: JSONValue) -> Result<JSONValue, FollowFailure> {
        var current = value
        var seen: [String] = []
        while case let .object(fields) = current, case let .string(reference)? = fields["$ref"] {
            guard !seen.contains(reference), seen.count < 32 else { return .failure(.cycle(seen + [reference])) }
            seen.append(reference)
            switch resolve(reference) {
            case let .found(target): current = target
            case .nowhere: return .failure(.nowhere(reference))
            case .external: return .failure(.external(reference))
            }
        }
        return .success(current)
    }

    /// Why `follow` stopped.
    enum FollowFailure: Error, CustomStringConvertible {
        case nowhere(String)
        case external(String)
        case cycle([String])

        var description: String {
            switch self {
            case let .nowhere(reference): return "$ref \(reference) points to nothing in the description"
            case let .external(reference): return "$ref \(reference) points into another document, which is not read"
            case let .cycle(references): return "the references \(references.joined(separator: " → ")) form a cycle"
            }
        }
    }
}

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
