import Testing
import Validator

@Suite struct GeneralRulesTests {
    static let film = #"{"film": "Avatar", "film-Rules": {"isOptional": true}}"#
    static let platform =
        #"{"platform": {"os": "Linux", "arch": "x86_64", "arch-Rules": {"matchWithOneOf": ["x86_64", "arm64"]}}, "platform-Rules": {"isOptional": true, "mustMatch": true}}"#

    static let cases: [ValidationCase] = [
        ValidationCase("optional key absent", template: film, response: "{}", expected: []),
        ValidationCase("optional key null", template: film, response: #"{"film": null}"#, expected: []),
        ValidationCase("optional key present is still checked", template: film, response: #"{"film": 3}"#, expected: ["/film type"]),
        ValidationCase(
            "isOptional false keeps the key required", template: #"{"a": 1, "a-Rules": {"isOptional": false}}"#,
            response: "{}", expected: ["/a key"]),
        ValidationCase("required key absent", template: #"{"a": 1}"#, response: "{}", expected: ["/a key"]),
        ValidationCase("required key null is a type error", template: #"{"a": 1}"#, response: #"{"a": null}"#, expected: ["/a type"]),
        ValidationCase(
            "a null template value matches anything", template: #"{"a": null}"#,
            response: #"{"a": {"x": [1]}}"#, expected: []),
        ValidationCase("a null template value still demands the key", template: #"{"a": null}"#, response: "{}", expected: ["/a key"]),
        ValidationCase("extra keys are fine", template: #"{"a": 1}"#, response: #"{"a": 1, "b": 2, "b-Rules": 3}"#, expected: []),
        ValidationCase(
            "mustMatch string passes", template: #"{"j": "US", "j-Rules": {"mustMatch": true}}"#,
            response: #"{"j": "US"}"#, expected: []),
        ValidationCase(
            "mustMatch string fails", template: #"{"j": "US", "j-Rules": {"mustMatch": true}}"#,
            response: #"{"j": "UK"}"#, expected: ["/j mustMatch"]),
        ValidationCase(
            "mustMatch number compares values", template: #"{"n": 1, "n-Rules": {"mustMatch": true}}"#,
            response: #"{"n": 1.0}"#, expected: []),
        ValidationCase(
            "mustMatch boolean", template: #"{"b": true, "b-Rules": {"mustMatch": true}}"#,
            response: #"{"b": false}"#, expected: ["/b mustMatch"]),
        ValidationCase(
            "mustMatch object deep equal, template rules ignored", template: platform,
            response: #"{"platform": {"os": "Linux", "arch": "x86_64"}}"#, expected: []),
        ValidationCase(
            "mustMatch object differs deep inside", template: platform,
            response: #"{"platform": {"os": "Linux", "arch": "arm64"}}"#, expected: ["/platform mustMatch"]),
        ValidationCase(
            "mustMatch object with an extra key differs", template: platform,
            response: #"{"platform": {"os": "Linux", "arch": "x86_64", "cpu": 8}}"#, expected: ["/platform mustMatch"]),
        ValidationCase("mustMatch object optional and absent", template: platform, response: "{}", expected: []),
        ValidationCase(
            "mustMatch array order matters", template: #"{"a": [1, 2], "a-Rules": {"mustMatch": true}}"#,
            response: #"{"a": [2, 1]}"#, expected: ["/a mustMatch"]),
        ValidationCase(
            "mustMatch array equal", template: #"{"a": [{"x": null, "y": [1]}, {"x": 2, "y": [3]}], "a-Rules": {"mustMatch": true}}"#,
            response: #"{"a": [{"x": null, "y": [1]}, {"x": 2.0, "y": [3]}]}"#, expected: []),
        ValidationCase(
            "mustMatch and the element check both apply", template: #"{"a": [1, "2"], "a-Rules": {"mustMatch": true}}"#,
            response: #"{"a": [1, "2"]}"#, expected: ["/a/1 type"]),
        ValidationCase("boolean passes a boolean", template: #"{"b": true}"#, response: #"{"b": false}"#, expected: []),
        ValidationCase("boolean rejects 1", template: #"{"b": true}"#, response: #"{"b": 1}"#, expected: ["/b type"]),
        ValidationCase("number rejects false", template: #"{"n": 0}"#, response: #"{"n": false}"#, expected: ["/n type"]),
    ]

    @Test(arguments: cases) func generalRule(_ testCase: ValidationCase) throws {
        try testCase.run()
    }
}
