import Testing
import Validator

@Suite struct StringRulesTests {
    static let code = #"{"code": "4321", "code-Rules": {"equalInLength": true}}"#
    static let password = #"{"p": "qwerty", "p-Rules": {"lengthMustBeEqualOrGreaterThan": 3, "lengthMustBeEqualOrLessThan": 5}}"#
    static let root = #"{"c": "NSObject", "c-Rules": {"hasSuffix": "Object"}}"#
    static let continent = #"{"c": "Asia", "c-Rules": {"matchWithOneOf": ["Africa", "Asia", "Europe", "Café"]}}"#

    static let cases: [ValidationCase] = [
        ValidationCase("equalInLength passes", template: code, response: #"{"code": "9876"}"#, expected: []),
        ValidationCase("equalInLength fails shorter", template: code, response: #"{"code": "987"}"#, expected: ["/code equalInLength"]),
        ValidationCase("equalInLength fails longer", template: code, response: #"{"code": "98765"}"#, expected: ["/code equalInLength"]),
        ValidationCase(
            "equalInLength counts a decomposed é as one", template: #"{"s": "é", "s-Rules": {"equalInLength": true}}"#,
            response: "{\"s\": \"e\u{301}\"}", expected: []),
        ValidationCase(
            "equalInLength counts a family emoji as one", template: #"{"s": "x", "s-Rules": {"equalInLength": true}}"#,
            response: #"{"s": "👨‍👩‍👧"}"#, expected: []),
        ValidationCase(
            "equalInLength false checks nothing", template: #"{"s": "x", "s-Rules": {"equalInLength": false}}"#,
            response: #"{"s": "long"}"#, expected: []),
        ValidationCase("length at the lower boundary", template: password, response: #"{"p": "abc"}"#, expected: []),
        ValidationCase(
            "length below the lower bound", template: password, response: #"{"p": "ab"}"#,
            expected: ["/p lengthMustBeEqualOrGreaterThan"]),
        ValidationCase("length at the upper boundary", template: password, response: #"{"p": "abcde"}"#, expected: []),
        ValidationCase(
            "length above the upper bound", template: password, response: #"{"p": "abcdef"}"#,
            expected: ["/p lengthMustBeEqualOrLessThan"]),
        ValidationCase("emoji count as one Character each (lower)", template: password, response: #"{"p": "😀😀😀"}"#, expected: []),
        ValidationCase(
            "emoji count as one Character each (upper)", template: password, response: #"{"p": "😀😀😀😀😀😀"}"#,
            expected: ["/p lengthMustBeEqualOrLessThan"]),
        ValidationCase(
            "decomposed accents count as one Character each", template: password,
            response: "{\"p\": \"e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}\"}", expected: []),
        ValidationCase("hasSuffix passes", template: root, response: #"{"c": "MyObject"}"#, expected: []),
        ValidationCase("hasSuffix passes on the suffix alone", template: root, response: #"{"c": "Object"}"#, expected: []),
        ValidationCase("hasSuffix fails", template: root, response: #"{"c": "ObjectFactory"}"#, expected: ["/c hasSuffix"]),
        ValidationCase(
            "hasSuffix is not a prefix check", template: #"{"c": "x", "c-Rules": {"hasSuffix": "NS"}}"#,
            response: #"{"c": "NSObject"}"#, expected: ["/c hasSuffix"]),
        ValidationCase(
            "hasSuffix does not split CR LF", template: #"{"c": "x", "c-Rules": {"hasSuffix": "\n"}}"#,
            response: #"{"c": "line\r\n"}"#, expected: ["/c hasSuffix"]),
        ValidationCase(
            "hasSuffix does not split an accented letter", template: #"{"c": "x", "c-Rules": {"hasSuffix": "e"}}"#,
            response: "{\"c\": \"cafe\u{301}\"}", expected: ["/c hasSuffix"]),
        ValidationCase(
            "hasSuffix uses canonical equivalence", template: #"{"c": "x", "c-Rules": {"hasSuffix": "K"}}"#,
            response: "{\"c\": \"10\u{212A}\"}", expected: []),
        ValidationCase(
            "hasSuffix with a non-ASCII suffix", template: #"{"c": "x", "c-Rules": {"hasSuffix": "ö"}}"#,
            response: "{\"c\": \"Malmo\u{308}\"}", expected: []),
        ValidationCase(
            "CR LF counts as one Character", template: #"{"s": "ab", "s-Rules": {"equalInLength": true}}"#,
            response: #"{"s": "\r\n!"}"#, expected: []),
        ValidationCase("matchWithOneOf passes", template: continent, response: #"{"c": "Europe"}"#, expected: []),
        ValidationCase("matchWithOneOf fails", template: continent, response: #"{"c": "Atlantis"}"#, expected: ["/c matchWithOneOf"]),
        ValidationCase("matchWithOneOf is case-sensitive", template: continent, response: #"{"c": "asia"}"#, expected: ["/c matchWithOneOf"]),
        ValidationCase(
            "matchWithOneOf treats canonically equivalent text as equal", template: continent,
            response: "{\"c\": \"Cafe\u{301}\"}", expected: []),
        ValidationCase("a number is not a string", template: root, response: #"{"c": 5}"#, expected: ["/c type"]),
    ]

    @Test(arguments: cases) func stringRule(_ testCase: ValidationCase) throws {
        try testCase.run()
    }

    @Test func lengthErrorNamesTheLength() throws {
        let errors = try Validator.validate(json(#"{"p": "ab"}"#), against: json(Self.password))
        #expect(errors.map(\.description) == [#"/p: lengthMustBeEqualOrGreaterThan: expected length >= 3, got length 2 "ab""#])
    }
}
