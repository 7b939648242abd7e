import Foundation
import Testing
import Validator

/// Parses JSON text for a test.
func json(_ text: String) throws -> JSONValue {
    try JSONValue(parsing: Data(text.utf8))
}

/// One validation scenario: a template, a response, a mask, and the errors expected as
/// `"<path> <rule>"` strings, in the order the validator reports them.
struct ValidationCase: Sendable, CustomTestStringConvertible {
    let name: String
    let template: String
    let response: String
    var mask: ValidationMask = .all
    let expected: [String]

    var testDescription: String { name }

    init(_ name: String, template: String, response: String, mask: ValidationMask = .all, expected: [String]) {
        self.name = name
        self.template = template
        self.response = response
        self.mask = mask
        self.expected = expected
    }

    /// Runs the case and records a failure when the errors differ from `expected`.
    func run(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let compiled = try Template(json(template))
        let errors = Validator.validate(try json(response), against: compiled, mask: mask)
        #expect(errors.map { "\($0.path) \($0.rule)" } == expected, "\(errors)", sourceLocation: sourceLocation)
    }
}
