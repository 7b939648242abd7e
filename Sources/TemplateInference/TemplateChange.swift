import JSONCore

/// One difference between an old and a new template of a method, at one place, classed as
/// breaking or compatible.
///
/// Breaking means a response valid under the old template may fail under the new one (a call
/// that passed would fail), or a client relying on the old one may break (a key it reads may be
/// missing, `null`, of another type, or an enum value it does not know). Everything else is
/// compatible. Its description is one line:
/// `breaking    users.get /response/*/last_name: key removed (it was required)`.
public struct TemplateChange: Sendable, Hashable, CustomStringConvertible {
    /// What changed.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The new template has a key the old one had not.
        case keyAdded
        /// The old template had a key the new one has not.
        case keyRemoved
        /// The place holds another JSON type (`null`, which accepts any value, counts as a type).
        case typeChanged
        /// Whether `null` passes changed (`isNullable`, or `elementsMayBeNull` for `/…/*`).
        case nullableChanged
        /// Whether the key may be absent changed (`isOptional`).
        case optionalChanged
        /// A rule was added or now accepts fewer values.
        case ruleTightened
        /// A rule was removed or now accepts more values.
        case ruleLoosened
        /// Only the new set has a template of this method.
        case methodAdded
        /// Only the old set has a template of this method.
        case methodRemoved
    }

    /// The method, i.e. the template's name (`users.get`, `issues/list-for-repo`).
    public var method: String
    /// The place, a JSON Pointer into the template whose array elements are `*`.
    public var pointer: String
    /// What changed.
    public var kind: Kind
    /// Whether the change may break a call or a client (see the type's description).
    public var isBreaking: Bool
    /// What the old template said there, in words (`number`, `required`, `minimum 0`), if anything.
    public var old: String?
    /// What the new template says there, in words, if anything.
    public var new: String?
    /// One phrase for a reader: `key removed (it was required)`.
    public var detail: String

    /// A change; see the properties.
    public init(method: String, pointer: String, kind: Kind, isBreaking: Bool, old: String?, new: String?, detail: String) {
        self.method = method
        self.pointer = pointer
        self.kind = kind
        self.isBreaking = isBreaking
        self.old = old
        self.new = new
        self.detail = detail
    }

    /// `breaking    <method> <pointer>: <detail>` (`compatible  …`); the root is `(root)`.
    public var description: String {
        "\(isBreaking ? "breaking  " : "compatible") \(method) \(pointer.isEmpty ? "(root)" : pointer): \(detail)"
    }

    /// The change as a JSON object `{"method", "pointer", "change", "breaking", "old", "new", "detail"}`
    /// (`old` and `new` are `null` where there is nothing to say).
    public var json: JSONValue {
        .object([
            "method": .string(method), "pointer": .string(pointer), "change": .string(kind.rawValue), "breaking": .bool(isBreaking),
            "old": old.map(JSONValue.string) ?? .null, "new": new.map(JSONValue.string) ?? .null, "detail": .string(detail),
        ])
    }
}
