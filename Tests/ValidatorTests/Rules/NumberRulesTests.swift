import Testing
import Validator

@Suite struct NumberRulesTests {
    static let ageTemplate = #"{"age": 20, "age-Rules": {"minimum": 18, "maximum": 27}}"#
    static let cases: [ValidationCase] = [
        ValidationCase("minimum passes above", template: ageTemplate, response: #"{"age": 20}"#, expected: []),
        ValidationCase("minimum passes at the boundary", template: ageTemplate, response: #"{"age": 18}"#, expected: []),
        ValidationCase("minimum fails below", template: ageTemplate, response: #"{"age": 17}"#, expected: ["/age minimum"]),
        ValidationCase("minimum passes a double at the boundary", template: ageTemplate, response: #"{"age": 18.0}"#, expected: []),
        ValidationCase("minimum fails a double just below", template: ageTemplate, response: #"{"age": 17.999}"#, expected: ["/age minimum"]),
        ValidationCase("maximum passes at the boundary", template: ageTemplate, response: #"{"age": 27}"#, expected: []),
        ValidationCase("maximum fails above", template: ageTemplate, response: #"{"age": 28}"#, expected: ["/age maximum"]),
        ValidationCase("maximum fails a double just above", template: ageTemplate, response: #"{"age": 27.5}"#, expected: ["/age maximum"]),
        ValidationCase("maximum fails a huge number", template: ageTemplate, response: #"{"age": 1e300}"#, expected: ["/age maximum"]),
        ValidationCase(
            "double bounds on an int", template: #"{"t": 1, "t-Rules": {"minimum": -0.5, "maximum": 0.5}}"#,
            response: #"{"t": 0}"#, expected: []),
        ValidationCase(
            "double bound excludes a neighbouring int", template: #"{"t": 1, "t-Rules": {"minimum": 0.5}}"#,
            response: #"{"t": 0}"#, expected: ["/t minimum"]),
        ValidationCase(
            "int bound against an int beyond 2^53", template: #"{"t": 1, "t-Rules": {"maximum": 9007199254740992}}"#,
            response: #"{"t": 9007199254740993}"#, expected: ["/t maximum"]),
        ValidationCase("an int template accepts a double", template: #"{"n": 1}"#, response: #"{"n": 1.5}"#, expected: []),
        ValidationCase("a double template accepts an int", template: #"{"n": 1.5}"#, response: #"{"n": 1}"#, expected: []),
        ValidationCase("a boolean is not a number", template: #"{"n": 1}"#, response: #"{"n": true}"#, expected: ["/n type"]),
        ValidationCase("a number is not a boolean", template: #"{"b": false}"#, response: #"{"b": 0}"#, expected: ["/b type"]),
        ValidationCase(
            "without type checks the rule fails a non-number", template: ageTemplate, response: #"{"age": "20"}"#,
            mask: [.keys, .extendedRules], expected: ["/age minimum", "/age maximum"]),
    ]

    @Test(arguments: cases) func numberRule(_ testCase: ValidationCase) throws {
        try testCase.run()
    }

    @Test func errorTellsTheBoundAndTheValue() throws {
        let errors = try Validator.validate(json(#"{"age": 12}"#), against: json(Self.ageTemplate))
        #expect(errors.map(\.description) == ["/age: minimum: expected >= 18, got 12"])
    }
}
