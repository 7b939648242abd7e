import JSONCore

/// Something the inference could not say as a rule, or chose not to guess, at one place of the
/// template.
///
/// Its description is one line: `/items/*/id: mixedTypes: number in 3 values, string in 2: any value passes here`.
public struct InferenceFinding: Sendable, Hashable, CustomStringConvertible {
    /// What the finding is about.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Values of different JSON types at one place (a number here, a string there): the
        /// template holds `null` there, which any value passes, instead of a guess.
        case mixedTypes
        /// An object with more distinct keys than `InferenceOptions.maximumKeysPerObject`: a
        /// map keyed by data, written as `{}`.
        case mapLike
        /// Values nested deeper than `InferenceOptions.maximumDepth`: written as `null`.
        case tooDeep
        /// The shape reached `InferenceOptions.maximumPlaces`: keys seen after that pass unchecked.
        case sizeLimit
        /// A key whose name ends in `-Rules` (a template would read it as rules): left out.
        case rulesKey
        /// Something the rule dialect has no place for: rules of the root, which has no key.
        case notSayable
    }

    /// What the finding is about.
    public var kind: Kind
    /// The place in the template, a JSON Pointer whose array elements are `*` (`/items/*/id`).
    public var pointer: String
    /// One sentence for a reader.
    public var message: String

    /// A finding of `kind` at `pointer`.
    public init(kind: Kind, pointer: String, message: String) {
        self.kind = kind
        self.pointer = pointer
        self.message = message
    }

    /// `<pointer>: <kind>: <message>` (the root is `(root)`).
    public var description: String {
        "\(pointer.isEmpty ? "(root)" : pointer): \(kind.rawValue): \(message)"
    }

    /// The finding as a JSON object `{"kind", "pointer", "message"}`.
    public var json: JSONValue {
        .object(["kind": .string(kind.rawValue), "pointer": .string(pointer), "message": .string(message)])
    }
}
