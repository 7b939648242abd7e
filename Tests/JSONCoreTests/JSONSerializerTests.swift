import Foundation
import JSONCore
import Testing

@Suite struct JSONSerializerTests {
    static let sample: JSONValue = .object([
        "b": .array([.int(1), .double(2.0), .double(-0.5), .bool(true), .null]),
        "a": .string("quote \" slash \\ newline \n tab \t bell \u{7} é 😀"),
        "c": .object([:]),
        "d": .array([]),
        "e": .int(Int.min),
    ])

    @Test func compactSortsKeys() {
        let text = String(decoding: Self.sample.serialized(), as: UTF8.self)
        #expect(
            text == #"{"a":"quote \" slash \\ newline \n tab \t bell \u0007 é 😀","b":[1,2.0,-0.5,true,null],"c":{},"d":[],"e":-9223372036854775808}"#)
    }

    @Test func prettyUsesTwoSpaces() {
        let value: JSONValue = .object(["z": .array([.int(1), .object(["k": .bool(false)])]), "a": .object([:])])
        let text = String(decoding: value.serialized(pretty: true), as: UTF8.self)
        #expect(
            text == """
                {
                  "a": {},
                  "z": [
                    1,
                    {
                      "k": false
                    }
                  ]
                }
                """)
    }

    @Test(arguments: [false, true]) func roundTrips(_ pretty: Bool) throws {
        #expect(try JSONValue(parsing: Self.sample.serialized(pretty: pretty)) == Self.sample)
    }

    struct DoubleCase: Sendable, CustomTestStringConvertible {
        let value: Double
        let text: String
        var testDescription: String { text }
    }

    @Test(arguments: [
        DoubleCase(value: 2, text: "2.0"), DoubleCase(value: 0.1, text: "0.1"), DoubleCase(value: 1e300, text: "1e+300"),
        DoubleCase(value: .infinity, text: "null"), DoubleCase(value: .nan, text: "null"),
    ]) func doubles(_ testCase: DoubleCase) throws {
        #expect(JSONValue.double(testCase.value).jsonText == testCase.text)
        if testCase.value.isFinite {
            #expect(try JSONValue(parsing: testCase.text) == .double(testCase.value))
        }
    }

    @Test func equalValuesGiveEqualBytes() throws {
        let one = try JSONValue(parsing: #"{"x": 1, "y": {"b": 2, "a": 1}}"#)
        let two = try JSONValue(parsing: #"{"y": {"a": 1, "b": 2}, "x": 1}"#)
        #expect(one.serialized() == two.serialized())
    }
}
