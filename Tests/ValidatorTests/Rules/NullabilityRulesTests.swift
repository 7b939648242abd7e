import Testing
import Validator

/// `isNullable` (present, may be null), `isOptional` (may be absent or null), both together,
/// and `elementsMayBeNull` (an array's elements may be null).
@Suite struct NullabilityRulesTests {
    static let assignee = #"{"assignee": {"login": "ann", "id": 1, "id-Rules": {"minimum": 1}}, "assignee-Rules": {"isNullable": true}}"#
    static let optional = #"{"assignee": {"login": "ann"}, "assignee-Rules": {"isOptional": true}}"#
    static let both = #"{"assignee": {"login": "ann"}, "assignee-Rules": {"isOptional": true, "isNullable": true}}"#
    static let assignees =
        #"{"assignees": [{"login": "ann", "id": 1, "id-Rules": {"minimum": 1}}], "assignees-Rules": {"elementsMayBeNull": true}}"#

    static let cases: [ValidationCase] = [
        // isNullable: the key must be there; null or a valid value passes.
        ValidationCase("isNullable: present and null passes", template: assignee, response: #"{"assignee": null}"#, expected: []),
        ValidationCase(
            "isNullable: present and valid passes", template: assignee, response: #"{"assignee": {"login": "bo", "id": 7}}"#, expected: []),
        ValidationCase(
            "isNullable: present and invalid fails inside", template: assignee, response: #"{"assignee": {"login": "bo", "id": 0}}"#,
            expected: ["/assignee/id minimum"]),
        ValidationCase(
            "isNullable: present and of another type fails", template: assignee, response: #"{"assignee": "bo"}"#,
            expected: ["/assignee type"]),
        ValidationCase("isNullable: missing fails as a key", template: assignee, response: "{}", expected: ["/assignee key"]),
        ValidationCase(
            "isNullable: missing fails under subEntityKeys too", template: #"{"issue": "# + assignee + "}",
            response: #"{"issue": {}}"#, expected: ["/issue/assignee key"]),
        ValidationCase(
            "isNullable: missing passes when the mask does not check keys", template: assignee, response: "{}",
            mask: [.valueTypes, .extendedRules], expected: []),
        ValidationCase(
            "isNullable: null passes whatever the mask", template: assignee, response: #"{"assignee": null}"#, mask: [.keys],
            expected: []),
        ValidationCase(
            "isNullable false keeps null a type error", template: #"{"a": 1, "a-Rules": {"isNullable": false}}"#,
            response: #"{"a": null}"#, expected: ["/a type"]),
        ValidationCase(
            "isNullable with value rules: null skips them", template: #"{"n": 5, "n-Rules": {"isNullable": true, "minimum": 3}}"#,
            response: #"{"n": null}"#, expected: []),
        ValidationCase(
            "isNullable with value rules: a value is checked", template: #"{"n": 5, "n-Rules": {"isNullable": true, "minimum": 3}}"#,
            response: #"{"n": 2}"#, expected: ["/n minimum"]),
        // isOptional keeps its meaning: absent or null.
        ValidationCase("isOptional: missing passes", template: optional, response: "{}", expected: []),
        ValidationCase("isOptional: null passes", template: optional, response: #"{"assignee": null}"#, expected: []),
        ValidationCase(
            "isOptional: present and invalid fails", template: optional, response: #"{"assignee": {"login": 3}}"#,
            expected: ["/assignee/login type"]),
        // Both: absent or null, as isOptional alone.
        ValidationCase("both: missing passes", template: both, response: "{}", expected: []),
        ValidationCase("both: null passes", template: both, response: #"{"assignee": null}"#, expected: []),
        ValidationCase("both: present and valid passes", template: both, response: #"{"assignee": {"login": "bo"}}"#, expected: []),
        ValidationCase(
            "both: present and invalid fails", template: both, response: #"{"assignee": {"login": 3}}"#,
            expected: ["/assignee/login type"]),
        ValidationCase(
            "isOptional with isNullable false: missing and null still pass",
            template: #"{"a": 1, "a-Rules": {"isOptional": true, "isNullable": false}}"#, response: #"{"b": {}, "a": null}"#, expected: []),
        // elementsMayBeNull: null elements pass, the others are checked against the element.
        ValidationCase(
            "elementsMayBeNull: null and valid elements pass", template: assignees,
            response: #"{"assignees": [null, {"login": "bo", "id": 2}, null]}"#, expected: []),
        ValidationCase(
            "elementsMayBeNull: an invalid element fails", template: assignees,
            response: #"{"assignees": [null, {"login": "bo", "id": 0}, {"id": 3}]}"#,
            expected: ["/assignees/1/id minimum", "/assignees/2/login key"]),
        ValidationCase(
            "without elementsMayBeNull a null element is a type error",
            template: #"{"assignees": [{"login": "ann"}]}"#, response: #"{"assignees": [{"login": "bo"}, null]}"#,
            expected: ["/assignees/1 type"]),
        ValidationCase(
            "elementsMayBeNull does not make the array itself nullable", template: assignees, response: #"{"assignees": null}"#,
            expected: ["/assignees type"]),
        ValidationCase(
            "elementsMayBeNull does not make the key optional", template: assignees, response: "{}", expected: ["/assignees key"]),
        ValidationCase(
            "elementsMayBeNull with isNullable: a null array and null elements pass",
            template: #"{"a": [1], "a-Rules": {"elementsMayBeNull": true, "isNullable": true, "elementsMustBeEqualOrMoreThan": 1}}"#,
            response: #"{"a": null}"#, expected: []),
        ValidationCase(
            "elementsMayBeNull on scalars, with the array's count rules",
            template: #"{"a": [1], "a-Rules": {"elementsMayBeNull": true, "elementsMustBeEqualOrMoreThan": 2}}"#,
            response: #"{"a": [null, "x"]}"#, expected: ["/a/1 type"]),
        ValidationCase(
            "elementsMayBeNull reaches only its own array's elements",
            template: #"{"a": [[1]], "a-Rules": {"elementsMayBeNull": true}}"#, response: #"{"a": [null, [2, null]]}"#,
            expected: ["/a/1/1 type"]),
    ]

    @Test(arguments: cases) func nullabilityRule(_ testCase: ValidationCase) throws {
        try testCase.run()
    }

    @Test func failFastAgreesOnAMissingNullableKey() throws {
        let compiled = try Template(json(Self.assignee))
        let errors = Validator.validate(try json("{}"), against: compiled, failFast: true)
        #expect(errors.map(\.description) == ["/assignee: key: expected present, got absent"])
    }
}
