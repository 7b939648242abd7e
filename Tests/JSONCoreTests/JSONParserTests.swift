import Foundation
import JSONCore
import Testing

@Suite struct JSONParserTests {
    struct ValidCase: Sendable, CustomTestStringConvertible {
        let name: String
        let text: String
        let value: JSONValue
        var testDescription: String { name }
    }

    static let valid: [ValidCase] = [
        ValidCase(
            name: "booleans and integers stay apart", text: "[true, 1, false, 0]",
            value: .array([.bool(true), .int(1), .bool(false), .int(0)])),
        ValidCase(name: "null", text: " null ", value: .null),
        ValidCase(name: "integer", text: "-42", value: .int(-42)),
        ValidCase(name: "negative zero is an integer", text: "-0", value: .int(0)),
        ValidCase(name: "fraction is a double", text: "1.0", value: .double(1.0)),
        ValidCase(name: "exponent is a double", text: "1E2", value: .double(100)),
        ValidCase(name: "negative exponent", text: "25e-1", value: .double(2.5)),
        ValidCase(name: "Int.max", text: "9223372036854775807", value: .int(Int.max)),
        ValidCase(name: "Int.min", text: "-9223372036854775808", value: .int(Int.min)),
        ValidCase(name: "above Int.max becomes a double", text: "9223372036854775808", value: .double(9_223_372_036_854_775_808.0)),
        ValidCase(name: "below Int.min becomes a double", text: "-9223372036854775809", value: .double(-9_223_372_036_854_775_809.0)),
        ValidCase(name: "a huge integer becomes a double", text: "123456789012345678901234567890", value: .double(1.2345678901234568e29)),
        ValidCase(name: "underflow becomes zero", text: "1e-400", value: .double(0)),
        ValidCase(name: "escapes", text: #""\"\\\/\b\f\n\r\t\u0041\u00e9""#, value: .string("\"\\/\u{8}\u{c}\n\r\tAé")),
        ValidCase(name: "surrogate pair", text: #""\uD83D\uDE00""#, value: .string("😀")),
        ValidCase(name: "raw UTF-8", text: #""Grüße, 世界 👋""#, value: .string("Grüße, 世界 👋")),
        ValidCase(name: "escaped NUL", text: #""a\u0000b""#, value: .string("a\u{0}b")),
        ValidCase(
            name: "nested", text: #"{"a": [1, {"b": null}], "c": {}, "d": []}"#,
            value: .object(["a": .array([.int(1), .object(["b": .null])]), "c": .object([:]), "d": .array([])])),
        ValidCase(name: "whitespace everywhere", text: " \t\r\n{ \"a\" : [ 1 , 2 ] } \n", value: .object(["a": .array([.int(1), .int(2)])])),
        ValidCase(name: "byte order mark is skipped", text: "\u{FEFF}[1]", value: .array([.int(1)])),
        ValidCase(name: "keys with escapes", text: #"{"a\"b": 1}"#, value: .object(["a\"b": .int(1)])),
    ]

    @Test(arguments: valid) func parsesValidDocuments(_ testCase: ValidCase) throws {
        #expect(try JSONValue(parsing: Data(testCase.text.utf8)) == testCase.value)
    }

    struct InvalidCase: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let kind: JSONParseError.Kind
        let offset: Int
        var testDescription: String { name }

        init(_ name: String, _ text: String, _ kind: JSONParseError.Kind, at offset: Int) {
            self.init(name, Array(text.utf8), kind, at: offset)
        }

        init(_ name: String, _ bytes: [UInt8], _ kind: JSONParseError.Kind, at offset: Int) {
            self.name = name
            self.bytes = bytes
            self.kind = kind
            self.offset = offset
        }
    }

    static let invalid: [InvalidCase] = [
        InvalidCase("empty input", "", .unexpectedEnd, at: 0),
        InvalidCase("only whitespace", "  ", .unexpectedEnd, at: 2),
        InvalidCase("trailing comma in an array", "[1,]", .unexpectedByte, at: 3),
        InvalidCase("trailing comma in an object", #"{"a":1,}"#, .unexpectedByte, at: 7),
        InvalidCase("leading zero", "01", .invalidNumber, at: 1),
        InvalidCase("negative leading zero", "[-01]", .invalidNumber, at: 3),
        InvalidCase("lone minus", "-", .invalidNumber, at: 1),
        InvalidCase("missing fraction digits", "1.", .invalidNumber, at: 2),
        InvalidCase("missing exponent digits", "1e+", .invalidNumber, at: 3),
        InvalidCase("leading dot", ".5", .unexpectedByte, at: 0),
        InvalidCase("leading plus", "+1", .unexpectedByte, at: 0),
        InvalidCase("number out of Double range", "[1e400]", .numberOutOfRange, at: 1),
        InvalidCase("NaN", "NaN", .unexpectedByte, at: 0),
        InvalidCase("trailing garbage", "{} x", .trailingData, at: 3),
        InvalidCase("two documents", "1 2", .trailingData, at: 2),
        InvalidCase("garbage after a literal", "truex", .trailingData, at: 4),
        InvalidCase("bad literal", "[nul]", .unexpectedByte, at: 4),
        InvalidCase("truncated literal", "tru", .unexpectedEnd, at: 3),
        InvalidCase("single quotes", "['a']", .unexpectedByte, at: 1),
        InvalidCase("unquoted key", "{a:1}", .unexpectedByte, at: 1),
        InvalidCase("missing colon", #"{"a" 1}"#, .unexpectedByte, at: 5),
        InvalidCase("missing comma", "[1 2]", .unexpectedByte, at: 3),
        InvalidCase("unclosed array", "[1", .unexpectedEnd, at: 2),
        InvalidCase("unclosed object", #"{"a":1"#, .unexpectedEnd, at: 6),
        InvalidCase("unterminated string", #""abc"#, .unexpectedEnd, at: 4),
        InvalidCase("raw newline in a string", "\"a\nb\"", .controlCharacter, at: 2),
        InvalidCase("unknown escape", #""\x""#, .invalidEscape, at: 2),
        InvalidCase("short unicode escape", #""\u12""#, .invalidEscape, at: 5),
        InvalidCase("lone high surrogate", #""\uD83D""#, .invalidEscape, at: 1),
        InvalidCase("high surrogate then a letter", #""\uD83Dx""#, .invalidEscape, at: 1),
        InvalidCase("high surrogate then a non-surrogate escape", #""\uD83D\u0041""#, .invalidEscape, at: 1),
        InvalidCase("lone low surrogate", #"["\uDE00"]"#, .invalidEscape, at: 2),
        InvalidCase("duplicate key", #"{"a":1,"a":2}"#, .duplicateKey, at: 7),
        InvalidCase("invalid UTF-8 byte", [0x22, 0x61, 0xFF, 0x22], .invalidUTF8, at: 2),
        InvalidCase("overlong encoding", [0x22, 0xC0, 0x80, 0x22], .invalidUTF8, at: 1),
        InvalidCase("encoded surrogate", [0x22, 0xED, 0xA0, 0x80, 0x22], .invalidUTF8, at: 1),
        InvalidCase("truncated sequence", [0x22, 0xE2, 0x82, 0x22], .invalidUTF8, at: 1),
        InvalidCase("stray continuation byte", [0x22, 0x80, 0x22], .invalidUTF8, at: 1),
        InvalidCase("invalid UTF-8 after an escape", [0x22, 0x5C, 0x6E, 0xFE, 0x22], .invalidUTF8, at: 3),
        InvalidCase("beyond U+10FFFF", [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], .invalidUTF8, at: 1),
        InvalidCase("non-ASCII outside a string", [0x5B, 0xC3, 0xA9, 0x5D], .unexpectedByte, at: 1),
    ]

    @Test(arguments: invalid) func rejectsInvalidDocuments(_ testCase: InvalidCase) {
        do {
            let value = try JSONValue(parsing: Data(testCase.bytes))
            Issue.record("parsed \(value)")
        } catch let error as JSONParseError {
            #expect(error.kind == testCase.kind, "\(error)")
            #expect(error.offset == testCase.offset, "\(error)")
            #expect(error.description.hasPrefix("invalid JSON at byte \(testCase.offset): "))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test(arguments: ["[", #"{"a":"#]) func tenThousandLevelsGiveAClearError(_ opener: String) {
        let text = String(repeating: opener, count: 10_000)
        let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: Data(text.utf8)) }
        #expect(error?.kind == .tooDeep)
        #expect(error?.offset == 512 * opener.utf8.count)
    }

    @Test func depthLimitIsExact() throws {
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try JSONValue(parsing: Data(deepest.utf8)) }
        let tooDeep = "[" + deepest + "]"
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: Data(tooDeep.utf8)) }
        let custom = String(repeating: "[", count: 3) + String(repeating: "]", count: 3)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: Data(custom.utf8), maxDepth: 2) }
        #expect(try JSONValue(parsing: Data(custom.utf8), maxDepth: 3) == .array([.array([.array([])])]))
    }

    @Test func errorDescriptionIsOneLine() {
        let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: "[1 2]") }
        #expect(error?.description == "invalid JSON at byte 3: expected ',' or ']' after an array element, found '2'")
    }
}
