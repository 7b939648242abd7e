import Foundation
import JSONCore
import Testing

/// The parser's fast paths (strings scanned eight bytes at a time, short strings interned,
/// containers built when they close) answer exactly as a byte-by-byte parser would.
@Suite struct JSONParserFastPathTests {
    /// Every string length around the word size, with the special byte at every position, and the
    /// document ending right after the string (so the last word is read byte by byte).
    @Test func stringsOfEveryLengthAndEverySpecialPosition() throws {
        for length in 0...40 {
            let plain = String(repeating: "a", count: length)
            #expect(try JSONValue(parsing: "\"\(plain)\"") == .string(plain))
            #expect(try JSONValue(parsing: "[\"\(plain)\"]") == .array([.string(plain)]))
            for position in 0..<max(length, 1) where length > 0 {
                let prefix = String(repeating: "a", count: position)
                let suffix = String(repeating: "b", count: length - position - 1)
                // An escape at `position`.
                #expect(try JSONValue(parsing: "\"\(prefix)\\n\(suffix)\"") == .string(prefix + "\n" + suffix))
                // A non-ASCII character at `position`.
                #expect(try JSONValue(parsing: "\"\(prefix)é\(suffix)\"") == .string(prefix + "é" + suffix))
                // A raw control character at `position`: its offset is reported.
                var bytes = Array("\"\(prefix)x\(suffix)\"".utf8)
                bytes[1 + position] = 0x01
                #expect(throws: JSONParseError(offset: 1 + position, kind: .controlCharacter, reason: "raw control character byte 0x01 in a string"))
                {
                    try JSONValue(parsing: Data(bytes))
                }
                // An invalid UTF-8 byte at `position`.
                bytes[1 + position] = 0xFF
                #expect(throws: JSONParseError(offset: 1 + position, kind: .invalidUTF8, reason: "invalid UTF-8 lead byte byte 0xFF in a string")) {
                    try JSONValue(parsing: Data(bytes))
                }
            }
            // Unterminated.
            #expect(throws: JSONParseError.self) { try JSONValue(parsing: "\"\(plain)") }
        }
    }

    /// Interned short strings: many distinct ones and repeated ones come back exactly.
    @Test func shortStringsAreInternedFaithfully() throws {
        var members: [JSONValue] = []
        for index in 0..<5_000 {
            members.append(
                .object([
                    "k\(index % 700)": .string("v\(index)"),
                    "sixteen-bytes-00": .string(String(repeating: "x", count: index % 18)),
                    "seventeen-bytes-0": .int(index),
                ]))
        }
        let document = JSONValue.array(members)
        #expect(try JSONValue(parsing: document.serialized()) == document)
    }

    /// Objects built from a shape seen before (the same keys in the same order) equal objects
    /// built key by key: key orders, long and escaped keys, values of every type, and a
    /// duplicate key after many objects of one shape.
    @Test func objectsOfARepeatedShape() throws {
        var elements: [String] = []
        for index in 0..<300 {
            let value = ["\(index)", "\"s\(index)\"", "null", "[\(index)]", "{\"n\": \(index)}", "true", "\(index).5"][index % 7]
            elements.append(#"{"a": \#(value), "b": \#(index), "c": "x"}"#)
            elements.append(#"{"c": "y", "b": \#(index), "a": \#(value)}"#)
            elements.append(#"{"a long key of more than sixteen bytes": \#(index), "esc\u0061ped": \#(value), "a": 1}"#)
            elements.append(#"{"a": \#(index)}"#)
        }
        let text = "[" + elements.joined(separator: ", ") + "]"
        let parsed = try JSONValue(parsing: text)
        guard case .array(let objects) = parsed else {
            Issue.record("not an array: \(parsed)")
            return
        }
        #expect(objects.count == 1_200)
        for (index, element) in elements.enumerated() {
            // Alone, each object is the first of its shape: built key by key.
            #expect(objects[index] == (try JSONValue(parsing: element)))
        }
        #expect(objects[2] == .object(["a long key of more than sixteen bytes": .int(0), "escaped": .int(0), "a": .int(1)]))

        let duplicate = String(repeating: #"{"a": 1, "b": 2},"#, count: 50) + #"{"a": 1, "a": 2}"#
        let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: "[" + duplicate + "]") }
        #expect(error?.kind == .duplicateKey)
        #expect(error?.offset == 1 + 50 * 17 + 9)
    }

    /// Decimals converted without strtod (at most 15 digits, exponents up to 22) give exactly
    /// the `Double` that `Double(String)` gives, around the limits of the fast path too.
    @Test func decimalsMatchDoubleParsing() throws {
        var texts = [
            "0.1", "0.0", "0.30000000000000004", "123456789012345.0", "1234567890123456.5", "9007199254740993.0", "1e22", "1e23", "1.5e-22",
            "1.5e-23", "4.9e-324", "1.7976931348623157e308", "123456789012345e-22", "0.000000000000001", "2.5E+3", "7.25e0",
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let digits = Int.random(in: 1...17, using: &generator)
            let mantissa = String((0..<digits).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
            let point = Int.random(in: 0...digits, using: &generator)
            var text = String(mantissa.prefix(point)) + "." + String(mantissa.dropFirst(point))
            if text.hasPrefix(".") { text = "0" + text }
            if text.hasSuffix(".") { text += "0" }
            while text.count > 1, text.hasPrefix("0"), !text.hasPrefix("0.") { text.removeFirst() }
            if Bool.random(using: &generator) { text += "e\(Int.random(in: -30...30, using: &generator))" }
            texts.append(text)
        }
        for text in texts {
            #expect(try JSONValue(parsing: text) == .double(Double(text)!), "\(text)")
            #expect(try JSONValue(parsing: "-" + text) == .double(Double("-" + text)!), "-\(text)")
        }
    }

    struct DuplicateCase: Sendable, CustomTestStringConvertible {
        let text: String
        let offset: Int
        var testDescription: String { text }
    }

    @Test(arguments: [
        DuplicateCase(text: #"{"a": 1, "a": 2}"#, offset: 9),
        DuplicateCase(text: #"{"a": {"b": [1, 2], "c": 3, "b": 4}}"#, offset: 28),
        DuplicateCase(text: #"[{"x": 1}, {"x": {"y": 2}, "z": [], "x": null}]"#, offset: 36),
    ])
    func duplicateKeysAreReportedAtTheSecondKey(_ testCase: DuplicateCase) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: testCase.text) }
        do {
            _ = try JSONValue(parsing: testCase.text)
        } catch let error as JSONParseError {
            #expect(error.kind == .duplicateKey)
            #expect(error.offset == testCase.offset)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func largeContainersAndHugeNumbers() throws {
        let keys = (0..<20_000).map { "key\($0)" }
        let object = JSONValue.object(Dictionary(uniqueKeysWithValues: keys.map { ($0, JSONValue.int($0.count)) }))
        #expect(try JSONValue(parsing: object.serialized()) == object)
        let array = JSONValue.array((0..<100_000).map { .int($0) })
        #expect(try JSONValue(parsing: array.serialized()) == array)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: "[1e400]") }
        let nines = String(repeating: "9", count: 300)
        #expect(try JSONValue(parsing: "[" + nines + "]") == .array([.double(Double(nines)!)]))
    }

    @Test func deepNestingIsAClearErrorNotAStackOverflow() {
        let deep = String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: deep) }
        do {
            _ = try JSONValue(parsing: deep)
        } catch let error as JSONParseError {
            #expect(error.kind == .tooDeep)
            #expect(error.offset == JSONValue.defaultMaxDepth)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}
