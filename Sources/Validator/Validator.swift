import JSONCore

/// Checks JSON responses against templates: sample responses annotated with `name-Rules` dictionaries.
///
/// ```swift
/// let template = try Template(JSONValue(parsing: templateBytes))
/// let response = try JSONValue(parsing: body)
/// for error in Validator.validate(response, against: template) {
///     print(error)        // /users/0/age: minimum: expected >= 18, got 12
/// }
/// ```
/// The validator is pure: no I/O, no shared state; every function may be called from any thread.
public enum Validator {
    /// Checks a template itself: rule names, rule value types, orphan `-Rules`, rules not applying to the value's type.
    ///
    /// Also reports rules that contradict each other (`minimum` above `maximum`…). An empty
    /// result means `Template(template)` succeeds.
    /// - Returns: Every error, ordered by path.
    public static func checkTemplate(_ template: JSONValue) -> [TemplateError] {
        var compiler = TemplateCompiler()
        _ = compiler.compile(template)
        return compiler.errors
    }

    /// The most errors a validation reports by default: the first 100 in the walk's order, then
    /// one `ValidationError.omission` that counts the rest.
    public static let defaultErrorLimit = 100

    /// Validates a response against a compiled template.
    ///
    /// Keys the template does not name are allowed. An `isOptional` key may be absent or `null`;
    /// an `isNullable` key must be present and may be `null`; otherwise `null` where the template
    /// has a non-null value is a type error. Each element of a response array is checked against
    /// the template array's first element (a `null` element passes under `elementsMayBeNull`).
    /// - Parameters:
    ///   - response: The parsed response.
    ///   - template: The compiled template.
    ///   - mask: The checks to perform.
    ///   - failFast: Stop at the first error.
    ///   - maxErrors: The most errors returned (`defaultErrorLimit`, 100): when the response has
    ///     more, the first `maxErrors` come, then one `ValidationError.omission(count:limit:)`
    ///     that says how many more were found. The walk goes on to count them, keeping none.
    /// - Returns: The errors (empty when the response is valid), ordered by the walk: template
    ///   keys sorted by their UTF-8 bytes, array elements by index; at most one when `failFast`.
    public static func validate(
        _ response: JSONValue, against template: Template, mask: ValidationMask = .all, failFast: Bool = false,
        maxErrors: Int = defaultErrorLimit
    ) -> [ValidationError] {
        var run = ValidationRun(mask: mask, failFast: failFast, limit: maxErrors, plan: template.plan)
        run.validate(response, 0, topLevel: true)
        guard run.omitted > 0 else { return run.errors }
        return run.errors + [.omission(count: run.omitted, limit: run.limit)]
    }

    /// Validates a response against a template given as JSON, compiling it first.
    ///
    /// Compile once with `Template(_:)` when the same template checks many responses.
    /// - Throws: `InvalidTemplateError` when the template itself has errors.
    /// - Returns: The validation errors, empty when the response is valid.
    public static func validate(
        _ response: JSONValue, against template: JSONValue, mask: ValidationMask = .all, failFast: Bool = false,
        maxErrors: Int = defaultErrorLimit
    ) throws(InvalidTemplateError) -> [ValidationError] {
        validate(response, against: try Template(template), mask: mask, failFast: failFast, maxErrors: maxErrors)
    }
}
