import Validator

/// One thing the import noticed about an operation: a construct the rule dialect cannot say, a
/// bound it says less exactly, an example that contradicts its schema, a name it made up.
package struct ImportFinding: Sendable, Equatable, CustomStringConvertible {
    /// What kind of finding it is.
    package enum Kind: String, Sendable, Equatable, CaseIterable {
        /// The construct is not checked at all (`oneOf`, `pattern`, `format`, …).
        case notChecked
        /// The construct is checked less strictly than it says (an exclusive bound on a
        /// non-integer, a recursion cut).
        case weakened
        /// An example contradicts the schema it illustrates.
        case exampleContradicts
        /// The operation has no operationId: the import named it.
        case named
        /// The description is broken here (a `$ref` to nowhere).
        case broken
    }

    /// What kind of finding it is.
    package var kind: Kind
    /// The JSON Schema or OpenAPI construct, e.g. `oneOf`, `pattern`, `exclusiveMinimum`.
    package var construct: String
    /// Where in the description, as a JSON Pointer (`/components/schemas/Item/properties/sku`).
    package var pointer: String
    /// One readable line.
    package var message: String

    package var description: String { "\(pointer): \(construct): \(message)" }

    /// The finding as a JSON object, for `--json`.
    var json: JSONValue {
        .object([
            "kind": .string(kind.rawValue), "construct": .string(construct), "pointer": .string(pointer),
            "message": .string(message),
        ])
    }
}
