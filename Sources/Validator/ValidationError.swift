import JSONCore

/// One way a response differs from its template; the same type as `Validator.ValidationError`.
///
/// Spelled `Validator.ValidationError` where ArgumentParser's `ValidationError` is in scope.
public typealias ValidationError = Validator.ValidationError

extension Validator {
    /// One way a response differs from its template: where, which check, what was expected, what came.
    ///
    /// The description is one line: `/users/0/age: minimum: expected >= 18, got 12`
    /// (the whole document is shown as `(root)`).
    public struct ValidationError: Error, CustomStringConvertible, Sendable, Hashable {
        /// The check that failed.
        public enum Check: Sendable, Hashable, CustomStringConvertible {
            /// A key of the template is absent from the response.
            case key
            /// The value's JSON type differs from the template's.
            case type
            /// A rule of the template's `-Rules` dictionary.
            case rule(Rule)
            /// A check made by a custom validation closure, with its name.
            case custom(String)

            /// `key`, `type`, the rule's name, or the custom check's name.
            public var description: String {
                switch self {
                case .key: return "key"
                case .type: return "type"
                case .rule(let rule): return rule.rawValue
                case .custom(let name): return name
                }
            }
        }

        /// The JSON Pointer (RFC 6901) of the failing value in the response (`""` is the root);
        /// for a missing key, the pointer the key would have.
        public var path: String
        /// The check that failed.
        public var check: Check
        /// What the template demanded, in words (e.g. `>= 18`, `string`, `present`).
        public var expected: String
        /// What the response held, in words (e.g. `12`, `number 12`, `absent`).
        public var actual: String

        /// Creates an error; custom validation closures use `.custom(name)` checks.
        public init(path: String, check: Check, expected: String, actual: String) {
            self.path = path
            self.check = check
            self.expected = expected
            self.actual = actual
        }

        /// Creates an error at a `JSONPointer`.
        public init(at pointer: JSONPointer, check: Check, expected: String, actual: String) {
            self.init(path: pointer.description, check: check, expected: expected, actual: actual)
        }

        /// The name of the failed check, as the CLI's `--json` output writes it.
        public var rule: String { check.description }

        /// One line: `<path>: <check>: expected <expected>, got <actual>`.
        public var description: String {
            "\(path.isEmpty ? "(root)" : path): \(check): expected \(expected), got \(actual)"
        }

        /// The name of the check of an `omission`.
        public static let omissionCheck = "moreErrors"

        /// The last error of a capped validation: `count` more errors were found after the
        /// first `limit`, and are not reported. Its description reads
        /// `(root): moreErrors: expected at most 100 errors reported, got 999900 more`.
        public static func omission(count: Int, limit: Int) -> ValidationError {
            ValidationError(
                path: "", check: .custom(omissionCheck), expected: "at most \(limit) errors reported", actual: "\(count) more")
        }

        /// For an `omission`, how many errors it stands for; nil for any other error.
        public var omittedCount: Int? {
            guard case .custom(Self.omissionCheck) = check, path.isEmpty, actual.hasSuffix(" more") else { return nil }
            return Int(actual.dropLast(" more".count))
        }

        /// The error as a JSON object `{"path", "rule", "expected", "actual"}`.
        public var json: JSONValue {
            .object(["path": .string(path), "rule": .string(rule), "expected": .string(expected), "actual": .string(actual)])
        }
    }
}
