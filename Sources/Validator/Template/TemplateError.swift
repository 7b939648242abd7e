/// A mistake in a template; the same type as `Validator.TemplateError`.
///
/// Spelled `Validator.TemplateError` where another module's `TemplateError` is in scope.
public typealias TemplateError = Validator.TemplateError

extension Validator {
    /// A mistake in a template itself, found before any response is checked.
    ///
    /// `path` is the JSON Pointer of the offending key inside the template (e.g. `/age-Rules/minimun`
    /// for a misspelled rule). The description is one line: `/age-Rules/minimun: unknown rule "minimun"`.
    public struct TemplateError: Error, CustomStringConvertible, Sendable, Hashable {
        /// What is wrong with the template.
        public enum Kind: String, Sendable, Hashable {
            /// A key in a rules dictionary that is not a rule name.
            case unknownRule
            /// A rule whose value has the wrong type or range (e.g. `"minimum": "18"`).
            case invalidRuleValue
            /// A `name-Rules` key without a `name` key beside it.
            case orphanRules
            /// A rule that does not apply to the type of the value it is attached to.
            case inapplicableRule
            /// A `name-Rules` value that is not an object.
            case rulesNotAnObject
            /// Two rules that no value can satisfy together (e.g. `minimum` above `maximum`).
            case contradictoryRules
        }

        /// The JSON Pointer of the offending key in the template (`""` is the template's root).
        public var path: String
        /// What is wrong, in words.
        public var message: String
        /// What is wrong, for code that branches on it.
        public var kind: Kind

        /// Creates a template error.
        public init(path: String, message: String, kind: Kind) {
            self.path = path
            self.message = message
            self.kind = kind
        }

        /// One line: `<path>: <message>` (the root is shown as `(root)`).
        public var description: String {
            "\(path.isEmpty ? "(root)" : path): \(message)"
        }
    }
}

/// Thrown when a template that has errors is compiled or used: it carries all of them.
public struct InvalidTemplateError: Error, CustomStringConvertible, Sendable, Hashable {
    /// Every error found in the template, in a stable order (by path).
    public var errors: [TemplateError]

    /// Wraps a non-empty list of template errors.
    public init(errors: [TemplateError]) {
        self.errors = errors
    }

    /// `invalid template: ` followed by the errors, separated by `; `.
    public var description: String {
        "invalid template: " + errors.map(\.description).joined(separator: "; ")
    }
}
