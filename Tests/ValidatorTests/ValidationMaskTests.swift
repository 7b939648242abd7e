import Testing
import Validator

@Suite struct ValidationMaskTests {
    /// Each response mistake below is caught by exactly one mask bit.
    static let template = #"{"a": 1, "b": "x", "c": {"d": 1}, "e": 5, "e-Rules": {"maximum": 10}}"#
    static let response = #"{"b": 2, "c": {}, "e": 50}"#
    static let errorsByBit: [(ValidationMask, String)] = [
        (.keys, "/a key"),
        (.valueTypes, "/b type"),
        (.subEntityKeys, "/c/d key"),
        (.extendedRules, "/e maximum"),
    ]

    @Test(arguments: 0..<16) func everyCombination(_ bits: Int) throws {
        let mask = ValidationMask(rawValue: UInt(bits))
        let expected = Self.errorsByBit.filter { mask.contains($0.0) }.map(\.1)
        try ValidationCase("mask \(bits)", template: Self.template, response: Self.response, mask: mask, expected: expected).run()
    }

    @Test func allIsEveryBit() {
        #expect(ValidationMask.all == [.keys, .subEntityKeys, .valueTypes, .extendedRules])
        #expect(ValidationMask.all.rawValue == 15)
    }

    static let levelCases: [ValidationCase] = [
        ValidationCase(
            "objects in a root array are top level", template: #"[{"id": 1}]"#, response: "[{}]",
            mask: .keys, expected: ["/0/id key"]),
        ValidationCase(
            "objects in a root array are not sub-entities", template: #"[{"id": 1}]"#, response: "[{}]",
            mask: .subEntityKeys, expected: []),
        ValidationCase(
            "objects in an array under a key are sub-entities", template: #"{"l": [{"id": 1}]}"#,
            response: #"{"l": [{}]}"#, mask: .subEntityKeys, expected: ["/l/0/id key"]),
        ValidationCase(
            "deep sub-entities", template: #"{"a": {"b": {"c": 1}}}"#, response: #"{"a": {"b": {}}}"#,
            mask: .subEntityKeys, expected: ["/a/b/c key"]),
        ValidationCase(
            "types without keys skip absent keys", template: #"{"a": 1, "b": {"c": 1}}"#, response: #"{"b": {}}"#,
            mask: .valueTypes, expected: []),
        ValidationCase(
            "isOptional is honoured without the rules bit", template: #"{"a": 1, "a-Rules": {"isOptional": true}}"#,
            response: "{}", mask: .keys, expected: []),
        ValidationCase("an empty mask checks nothing", template: #"{"a": 1}"#, response: "[]", mask: [], expected: []),
    ]

    @Test(arguments: levelCases) func levels(_ testCase: ValidationCase) throws {
        try testCase.run()
    }

    struct NameCase: Sendable, CustomTestStringConvertible {
        let name: String
        let mask: ValidationMask?
        var testDescription: String { name }
    }

    @Test(arguments: [
        NameCase(name: "keys", mask: .keys), NameCase(name: "subkeys", mask: .subEntityKeys),
        NameCase(name: "types", mask: .valueTypes), NameCase(name: "rules", mask: .extendedRules),
        NameCase(name: "all", mask: .all), NameCase(name: "valueTypes", mask: .valueTypes), NameCase(name: "bogus", mask: nil),
    ]) func names(_ testCase: NameCase) {
        #expect(ValidationMask.named(testCase.name) == testCase.mask)
    }
}
