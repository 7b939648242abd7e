import Foundation
import JSONCore

/// A template compiled once and reused: its rules are checked and typed up front, so validating
/// a response does no template work.
///
/// ```swift
/// let template = try Template(parsing: templateBytes)      // template errors thrown here
/// let errors = Validator.validate(response, against: template)
/// ```
public struct Template: Sendable {
    /// The template's JSON, as given.
    public let json: JSONValue
    let root: TemplateNode
    /// The compiled template flattened for validation.
    let plan: ValidationPlan

    /// Compiles a template.
    /// - Throws: `InvalidTemplateError` listing every template error (see `Validator.checkTemplate`).
    public init(_ json: JSONValue) throws(InvalidTemplateError) {
        var compiler = TemplateCompiler()
        let root = compiler.compile(json)
        guard compiler.errors.isEmpty else { throw InvalidTemplateError(errors: compiler.errors) }
        self.json = json
        self.root = root
        self.plan = ValidationPlan(root: root)
    }

    /// Parses and compiles a template from its JSON bytes.
    /// - Throws: `JSONParseError` when the bytes are not JSON, `InvalidTemplateError` when the
    ///   template has errors.
    public init(parsing data: Data) throws {
        try self.init(JSONValue(parsing: data))
    }
}
