import Testing
import Validator

@Suite struct TemplateTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let template: String
        /// `"<path> <kind>"` for every expected error, in order.
        let expected: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "unknown rule", template: #"{"a": 1, "a-Rules": {"minimun": 1}}"#, expected: ["/a-Rules/minimun unknownRule"]),
        Case(
            name: "rule value of the wrong type", template: #"{"a": 1, "a-Rules": {"minimum": "1"}}"#,
            expected: ["/a-Rules/minimum invalidRuleValue"]),
        Case(
            name: "isOptional not a boolean", template: #"{"a": 1, "a-Rules": {"isOptional": 1}}"#,
            expected: ["/a-Rules/isOptional invalidRuleValue"]),
        Case(
            name: "isNullable not a boolean", template: #"{"a": 1, "a-Rules": {"isNullable": "yes"}}"#,
            expected: ["/a-Rules/isNullable invalidRuleValue"]),
        Case(
            name: "elementsMayBeNull not a boolean", template: #"{"l": [1], "l-Rules": {"elementsMayBeNull": null}}"#,
            expected: ["/l-Rules/elementsMayBeNull invalidRuleValue"]),
        Case(
            name: "elementsMayBeNull on an object", template: #"{"a": {}, "a-Rules": {"elementsMayBeNull": true}}"#,
            expected: ["/a-Rules/elementsMayBeNull inapplicableRule"]),
        Case(
            name: "negative length", template: #"{"s": "x", "s-Rules": {"lengthMustBeEqualOrLessThan": -1}}"#,
            expected: ["/s-Rules/lengthMustBeEqualOrLessThan invalidRuleValue"]),
        Case(
            name: "fractional element count", template: #"{"l": [], "l-Rules": {"elementsMustBeEqualOrMoreThan": 1.5}}"#,
            expected: ["/l-Rules/elementsMustBeEqualOrMoreThan invalidRuleValue"]),
        Case(
            name: "empty matchWithOneOf", template: #"{"s": "x", "s-Rules": {"matchWithOneOf": []}}"#,
            expected: ["/s-Rules/matchWithOneOf invalidRuleValue"]),
        Case(
            name: "matchWithOneOf with a number", template: #"{"s": "x", "s-Rules": {"matchWithOneOf": ["a", 1]}}"#,
            expected: ["/s-Rules/matchWithOneOf invalidRuleValue"]),
        Case(
            name: "hasSuffix not a string", template: #"{"s": "x", "s-Rules": {"hasSuffix": null}}"#,
            expected: ["/s-Rules/hasSuffix invalidRuleValue"]),
        Case(name: "orphan rules", template: #"{"a": 1, "b-Rules": {"isOptional": true}}"#, expected: ["/b-Rules orphanRules"]),
        Case(
            name: "rules of rules are orphans", template: #"{"a": 1, "a-Rules": {}, "a-Rules-Rules": {}}"#,
            expected: ["/a-Rules-Rules orphanRules"]),
        Case(
            name: "number rule on a string", template: #"{"a": "x", "a-Rules": {"minimum": 1}}"#,
            expected: ["/a-Rules/minimum inapplicableRule"]),
        Case(
            name: "string rule on a boolean", template: #"{"a": true, "a-Rules": {"hasSuffix": "e"}}"#,
            expected: ["/a-Rules/hasSuffix inapplicableRule"]),
        Case(
            name: "array rule on an object", template: #"{"a": {}, "a-Rules": {"elementsMustBeEqualOrLessThan": 1}}"#,
            expected: ["/a-Rules/elementsMustBeEqualOrLessThan inapplicableRule"]),
        Case(
            name: "string rule on a number", template: #"{"a": 1, "a-Rules": {"equalInLength": true}}"#,
            expected: ["/a-Rules/equalInLength inapplicableRule"]),
        Case(
            name: "mustMatch on null", template: #"{"a": null, "a-Rules": {"mustMatch": true}}"#,
            expected: ["/a-Rules/mustMatch inapplicableRule"]),
        Case(name: "rules not an object", template: #"{"a": 1, "a-Rules": [true]}"#, expected: ["/a-Rules rulesNotAnObject"]),
        Case(
            name: "minimum above maximum", template: #"{"a": 1, "a-Rules": {"minimum": 5, "maximum": 1.5}}"#,
            expected: ["/a-Rules contradictoryRules"]),
        Case(
            name: "length bounds crossed",
            template: #"{"s": "x", "s-Rules": {"lengthMustBeEqualOrGreaterThan": 3, "lengthMustBeEqualOrLessThan": 2}}"#,
            expected: ["/s-Rules contradictoryRules"]),
        Case(
            name: "element bounds crossed",
            template: #"{"l": [], "l-Rules": {"elementsMustBeEqualOrMoreThan": 3, "elementsMustBeEqualOrLessThan": 2}}"#,
            expected: ["/l-Rules contradictoryRules"]),
        Case(
            name: "nested inside arrays and objects", template: #"{"x": {"y": [{"a": 1, "a-Rules": {"bad": 1}}]}}"#,
            expected: ["/x/y/0/a-Rules/bad unknownRule"]),
        Case(
            name: "later array elements are checked too", template: #"[{"a": 1}, {"a": 1, "a-Rules": {"bad": 1}}]"#,
            expected: ["/1/a-Rules/bad unknownRule"]),
        Case(
            name: "keys are escaped in the path", template: #"{"a/b": 1, "a/b-Rules": {"nope~": true}}"#,
            expected: ["/a~1b-Rules/nope~0 unknownRule"]),
        Case(
            name: "several errors, in path order", template: #"{"a": 1, "a-Rules": {"x": 1, "hasSuffix": "s"}, "z-Rules": {}}"#,
            expected: ["/a-Rules/hasSuffix inapplicableRule", "/a-Rules/x unknownRule", "/z-Rules orphanRules"]),
        Case(
            name: "a valid template with every rule",
            template: #"""
                {"n": 1, "n-Rules": {"isOptional": true, "isNullable": true, "mustMatch": false, "minimum": 0, "maximum": 2.5},
                 "s": "abcd", "s-Rules": {"equalInLength": true, "lengthMustBeEqualOrGreaterThan": 4, "lengthMustBeEqualOrLessThan": 4,
                                          "hasSuffix": "d", "matchWithOneOf": ["abcd"]},
                 "l": [1], "l-Rules": {"elementsMustBeEqualOrMoreThan": 0, "elementsMustBeEqualOrLessThan": 0, "elementsMayBeNull": true},
                 "o": {}, "o-Rules": {"mustMatch": true}, "b": false, "b-Rules": {"mustMatch": true}, "z": null, "z-Rules": {"isOptional": true}}
                """#, expected: []),
    ]

    @Test(arguments: cases) func templateErrors(_ testCase: Case) throws {
        let template = try json(testCase.template)
        let errors = Validator.checkTemplate(template)
        #expect(errors.map { "\($0.path) \($0.kind.rawValue)" } == testCase.expected, "\(errors)")
        if testCase.expected.isEmpty {
            #expect(throws: Never.self) { try Template(template) }
        } else {
            #expect(throws: InvalidTemplateError(errors: errors)) { try Template(template) }
        }
    }

    @Test func messagesAreReadable() throws {
        let errors = Validator.checkTemplate(try json(#"{"a": "x", "a-Rules": {"minimum": 1, "maximum": "2", "minimun": 0}, "b-Rules": 1}"#))
        #expect(
            errors.map(\.description) == [
                #"/a-Rules/maximum: rule maximum applies to numbers, not to a string value"#,
                #"/a-Rules/minimum: rule minimum applies to numbers, not to a string value"#,
                #"/a-Rules/minimun: unknown rule "minimun""#,
                #"/b-Rules: rules key "b-Rules" has no key "b" beside it"#,
            ])
    }

    @Test func compiledTemplateKeepsItsJSON() throws {
        let source = try json(#"{"a": [1, {"b": null}]}"#)
        #expect(try Template(source).json == source)
    }
}
