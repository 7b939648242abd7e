import APILayer
import Foundation
import Testing
import Validator

/// Typed values out of deep JSON, and errors that say where the path broke.
struct ParserTests {
    static let json = try! JSONValue(
        parsing: Data(
            #"""
            {"response": {"count": 2, "online": true, "rating": 4.5,
              "items": [{"id": 7, "name": "Ann", "tags": ["a"]}, {"id": 8, "name": "Bo", "flag": 1}]}}
            """#.utf8))

    @Test func typedValues() throws {
        #expect(try Parser.int(at: "response.count", in: Self.json) == 2)
        #expect(try Parser.bool(at: "response.online", in: Self.json))
        #expect(try Parser.double(at: "response.rating", in: Self.json) == 4.5)
        #expect(try Parser.double(at: "response.count", in: Self.json) == 2)
        #expect(try Parser.string(at: "response.items.1.name", in: Self.json) == "Bo")
        #expect(try Parser.array(at: "response.items.0.tags", in: Self.json) == [.string("a")])
        #expect(try Parser.object(at: "response.items.0", in: Self.json).keys.sorted() == ["id", "name", "tags"])
        #expect(try Parser.value(at: "", in: Self.json) == Self.json)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let path: String
        let error: ParserError
        var testDescription: String { path }
    }

    @Test(arguments: [
        Case(path: "response.missing.id", error: .missing(path: "response.missing.id", foundUpTo: "response")),
        Case(path: "response.items.5.id", error: .missing(path: "response.items.5.id", foundUpTo: "response.items")),
        Case(path: "response.count.x", error: .missing(path: "response.count.x", foundUpTo: "response.count")),
        Case(path: "response.items.1.flag", error: .wrongType(path: "response.items.1.flag", expected: "boolean", found: .int(1))),
    ])
    func errorsNameThePath(_ testCase: Case) {
        #expect(throws: testCase.error) {
            if testCase.path.hasSuffix("flag") {
                _ = try Parser.bool(at: testCase.path, in: Self.json)
            } else {
                _ = try Parser.int(at: testCase.path, in: Self.json)
            }
        }
        #expect(testCase.error.description.contains(testCase.path))
    }
}
