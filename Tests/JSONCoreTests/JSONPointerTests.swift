import JSONCore
import Testing

@Suite struct JSONPointerTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        let tokens: [String]
        var testDescription: String { text.isEmpty ? "(root)" : text }
    }

    static let cases: [Case] = [
        Case(text: "", tokens: []),
        Case(text: "/", tokens: [""]),
        Case(text: "/a/0", tokens: ["a", "0"]),
        Case(text: "/a~1b/c~0d", tokens: ["a/b", "c~d"]),
        Case(text: "/~01", tokens: ["~1"]),
    ]

    @Test(arguments: cases) func escapesAndParses(_ testCase: Case) {
        #expect(JSONPointer(tokens: testCase.tokens).description == testCase.text)
        #expect(JSONPointer(testCase.text)?.tokens == testCase.tokens)
    }

    @Test(arguments: ["a", "/~2", "/~"]) func rejectsMalformedPointers(_ text: String) {
        #expect(JSONPointer(text) == nil)
    }

    @Test func resolves() throws {
        let document = try JSONValue(parsing: #"{"a/b": [10, {"c": null}], "": 1}"#)
        #expect(JSONPointer("/a~1b/0")?.resolve(in: document) == .int(10))
        #expect(JSONPointer("/a~1b/1/c")?.resolve(in: document) == .null)
        #expect(JSONPointer("/")?.resolve(in: document) == .int(1))
        #expect(JSONPointer("/a~1b/2")?.resolve(in: document) == nil)
        #expect(JSONPointer("/a~1b/01")?.resolve(in: document) == nil)
        #expect(JSONPointer("")?.resolve(in: document) == document)
        #expect(JSONPointer().appending(key: "a/b").appending(index: 1).description == "/a~1b/1")
    }
}
