import Testing
import Validator

@Suite struct ArrayRulesTests {
    static let wheels = #"{"w": ["lf", "rf", "lr", "rr"], "w-Rules": {"elementsMustBeEqualOrMoreThan": 4, "elementsMustBeEqualOrLessThan": 6}}"#

    static let cases: [ValidationCase] = [
        ValidationCase("count inside the range", template: wheels, response: #"{"w": ["a", "b", "c", "d", "e"]}"#, expected: []),
        ValidationCase("count at the lower boundary", template: wheels, response: #"{"w": ["a", "b", "c", "d"]}"#, expected: []),
        ValidationCase("count below", template: wheels, response: #"{"w": ["a", "b", "c"]}"#, expected: ["/w elementsMustBeEqualOrMoreThan"]),
        ValidationCase("count at the upper boundary", template: wheels, response: #"{"w": ["a", "b", "c", "d", "e", "f"]}"#, expected: []),
        ValidationCase(
            "count above", template: wheels, response: #"{"w": ["a", "b", "c", "d", "e", "f", "g"]}"#,
            expected: ["/w elementsMustBeEqualOrLessThan"]),
        ValidationCase(
            "elements are checked against the first template element", template: wheels,
            response: #"{"w": ["a", 2, "c", true]}"#, expected: ["/w/1 type", "/w/3 type"]),
        ValidationCase(
            "an empty template array checks only the type", template: #"{"w": []}"#,
            response: #"{"w": [1, "two", null]}"#, expected: []),
        ValidationCase(
            "an empty template array still demands an array", template: #"{"w": []}"#,
            response: #"{"w": {}}"#, expected: ["/w type"]),
        ValidationCase("an empty response array is fine", template: #"{"w": [1]}"#, response: #"{"w": []}"#, expected: []),
    ]

    @Test(arguments: cases) func arrayRule(_ testCase: ValidationCase) throws {
        try testCase.run()
    }
}
