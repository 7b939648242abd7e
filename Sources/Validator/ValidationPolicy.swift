import JSONCore

/// How the responses of one API method are validated: against its template, by code, or both.
///
/// ```swift
/// let policy = ValidationPolicy.automaticThen(.all) { response in
///     guard case .object(let body) = response, body["response"] != nil else {
///         return [ValidationError(path: "/response", check: .custom("hasResponse"), expected: "present", actual: "absent")]
///     }
///     return []
/// }
/// let errors = policy.validate(response, template: template)
/// ```
public enum ValidationPolicy: Sendable {
    /// A custom check: returns the errors it finds in a response (empty when valid).
    public typealias Check = @Sendable (JSONValue) -> [ValidationError]

    /// Validate against the method's template with these checks.
    case automatic(ValidationMask)
    /// Only the closure decides; the template is not consulted.
    case custom(Check)
    /// Validate against the template first; when it passes, the closure checks further (so the
    /// closure may rely on the structure the template guarantees).
    case automaticThen(ValidationMask, Check)

    /// The default: every automatic check.
    public static let `default` = ValidationPolicy.automatic(.all)

    /// Validates `response` under this policy.
    ///
    /// With no template (none is shipped for the method) the automatic part has nothing to
    /// compare with and passes; a custom closure still runs.
    /// - Parameters:
    ///   - response: The parsed response.
    ///   - template: The method's compiled template, if it has one.
    ///   - failFast: Return at most the first error.
    ///   - maxErrors: The most errors returned, the template's and the closure's alike: beyond
    ///     it, the first `maxErrors` and one `ValidationError.omission(count:limit:)` counting the
    ///     rest (see `Validator.defaultErrorLimit`).
    /// - Returns: The errors found, empty when the response is valid.
    public func validate(
        _ response: JSONValue, template: Template?, failFast: Bool = false, maxErrors: Int = Validator.defaultErrorLimit
    ) -> [ValidationError] {
        switch self {
        case .automatic(let mask):
            return automatic(response, template, mask, failFast, maxErrors)
        case .custom(let check):
            return Self.limit(check(response), failFast, maxErrors)
        case .automaticThen(let mask, let check):
            let errors = automatic(response, template, mask, failFast, maxErrors)
            guard errors.isEmpty else { return errors }
            return Self.limit(check(response), failFast, maxErrors)
        }
    }

    private func automatic(
        _ response: JSONValue, _ template: Template?, _ mask: ValidationMask, _ failFast: Bool, _ maxErrors: Int
    ) -> [ValidationError] {
        guard let template else { return [] }
        return Validator.validate(response, against: template, mask: mask, failFast: failFast, maxErrors: maxErrors)
    }

    private static func limit(_ errors: [ValidationError], _ failFast: Bool, _ maxErrors: Int) -> [ValidationError] {
        if failFast { return Array(errors.prefix(1)) }
        let limit = max(maxErrors, 1)
        guard errors.count > limit else { return errors }
        return Array(errors.prefix(limit)) + [.omission(count: errors.count - limit, limit: limit)]
    }
}
