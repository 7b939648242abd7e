import JSONCore

/// One compiled value of a template: the type it demands, its rules, and its sample for `mustMatch`.
///
/// The tree of nodes is what the compiler builds; validation walks its flattened form, the
/// template's `ValidationPlan`.
final class TemplateNode: Sendable {
    /// What a response value must look like at this place.
    enum Shape: Sendable {
        /// A `null` template value: any response value matches.
        case any
        case boolean
        case number
        case string
        /// An array; every response element is checked against `element` (the template's first
        /// element), or only the type when the template array is empty.
        case array(element: TemplateNode?)
        /// An object; its value keys in a stable order (by UTF-8 bytes), rules keys removed.
        case object(fields: [TemplateField])
    }

    let shape: Shape
    /// The template value without its `-Rules` keys, compared by `mustMatch`.
    let sample: JSONValue
    let rules: RuleSet
    /// Whether the value itself has rules to evaluate (computed once, read on every value).
    let hasValueRules: Bool
    /// Whether the key may be absent (`isOptional`).
    let isOptional: Bool
    /// Whether the value may be `null` (`isOptional`, `isNullable`, or an element of an array
    /// whose rules say `elementsMayBeNull`).
    let acceptsNull: Bool

    init(shape: Shape, sample: JSONValue, rules: RuleSet) {
        self.shape = shape
        self.sample = sample
        self.rules = rules
        self.hasValueRules = rules.hasValueRules
        self.isOptional = rules.isOptional
        self.acceptsNull = rules.acceptsNull
        switch shape {
        case .any: expectedType = nil
        case .boolean: expectedType = .boolean
        case .number: expectedType = .number
        case .string: expectedType = .string
        case .array: expectedType = .array
        case .object: expectedType = .object
        }
    }

    /// The JSON type this node demands, or `nil` for `.any` (stored: it is read for every value).
    let expectedType: JSONType?
}

/// A key of a template object, with the compiled template of its value.
struct TemplateField: Sendable {
    var key: String
    var node: TemplateNode
}
