import Foundation
import Testing

@testable import Mapper

/// Containers inside containers, super decoders and `decodeNil`, read by hand the way a custom
/// `init(from:)` reads them: the values, the coding paths, where an unkeyed container's index
/// stands, and the errors, against `JSONDecoder`.
struct NestedContainerTests {
    /// Decodes `type` from `json` with both decoders, expects `expected` from ours and the same
    /// from `JSONDecoder`.
    private func check<T: Decodable>(
        _ type: T.Type, _ json: String, _ expected: Outcome, oracle: DecodingOracle = DecodingOracle(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let ours = Outcome(oracle.ours(type, json))
        #expect(ours == expected, sourceLocation: sourceLocation)
        let foundation = Outcome(oracle.foundation(type, json))
        #expect(ours.agrees(withFoundation: foundation), "JSONDecoder: \(foundation)", sourceLocation: sourceLocation)
    }

    // MARK: In a keyed container

    /// `{"point": {"x": …, "y": …}, "list": [[…], …]}`, read through `nestedContainer(keyedBy:forKey:)`
    /// and `nestedUnkeyedContainer(forKey:)`, each value with its coding path.
    struct KeyedNesting: Decodable, CustomStringConvertible {
        var read: [String] = []
        var description: String { read.joined(separator: " ") }

        init(from decoder: any Decoder) throws {
            let root = try decoder.container(keyedBy: Key.self)
            let here = Outcome.path(decoder.codingPath)
            let point = try root.nestedContainer(keyedBy: Key.self, forKey: "point")
            #expect(Outcome.path(point.codingPath) == here + ["point"])
            let x = try point.decode(Int.self, forKey: "x")
            let y = try point.decode(Int.self, forKey: "y")
            read.append("x=\(x) y=\(y)")
            var list = try root.nestedUnkeyedContainer(forKey: "list")
            #expect(Outcome.path(list.codingPath) == here + ["list"])
            read.append("n=\(list.count ?? -1)")
            while !list.isAtEnd {
                var inner = try list.nestedUnkeyedContainer()
                #expect(Outcome.path(inner.codingPath) == here + ["list", "#\(list.currentIndex - 1)"])
                var numbers: [String] = []
                while !inner.isAtEnd { numbers.append("\(try inner.decode(Int.self))") }
                read.append("[\(numbers.joined(separator: ","))]")
            }
        }
    }

    @Test func keyedNestingReadsEveryLevel() {
        check(KeyedNesting.self, #"{"point": {"x": 1, "y": 2}, "list": [[3, 4], []]}"#, .value("x=1 y=2 n=2 [3,4] []"))
    }

    struct KeyedNestingCase: Sendable, CustomTestStringConvertible {
        let json: String
        let expected: Outcome
        var testDescription: String { json }
    }

    @Test(arguments: [
        KeyedNestingCase(json: #"{"list": []}"#, expected: .keyNotFound("point", path: [])),
        KeyedNestingCase(json: #"{"point": null, "list": []}"#, expected: .valueNotFound("Dictionary<String, Any>", path: ["point"])),
        KeyedNestingCase(json: #"{"point": [1], "list": []}"#, expected: .typeMismatch("Dictionary<String, Any>", path: ["point"])),
        KeyedNestingCase(json: #"{"point": {"x": 1}, "list": []}"#, expected: .keyNotFound("y", path: ["point"])),
        KeyedNestingCase(json: #"{"point": {"x": 1, "y": "2"}, "list": []}"#, expected: .typeMismatch("Int", path: ["point", "y"])),
        KeyedNestingCase(json: #"{"point": {"x": 1, "y": 2}}"#, expected: .keyNotFound("list", path: [])),
        KeyedNestingCase(json: #"{"point": {"x": 1, "y": 2}, "list": null}"#, expected: .valueNotFound("Array<Any>", path: ["list"])),
        KeyedNestingCase(json: #"{"point": {"x": 1, "y": 2}, "list": {}}"#, expected: .typeMismatch("Array<Any>", path: ["list"])),
        KeyedNestingCase(json: #"{"point": {"x": 1, "y": 2}, "list": [3]}"#, expected: .typeMismatch("Array<Any>", path: ["list", "#0"])),
        KeyedNestingCase(json: #"{"point": {"x": 1, "y": 2}, "list": [null]}"#, expected: .valueNotFound("Array<Any>", path: ["list", "#0"])),
        KeyedNestingCase(json: #"{"point": {"x": 1, "y": 2}, "list": [[1, "2"]]}"#, expected: .typeMismatch("Int", path: ["list", "#0", "#1"])),
    ])
    func keyedNestingFails(_ testCase: KeyedNestingCase) {
        check(KeyedNesting.self, testCase.json, testCase.expected)
    }

    // MARK: In an unkeyed container

    /// `[{"name": …}, [n, …], …]`: objects through `nestedContainer(keyedBy:)`, arrays through
    /// `nestedUnkeyedContainer()`, by the kind of element expected next (`kinds`, one letter each).
    struct UnkeyedNesting: Decodable, CustomStringConvertible {
        var read: [String] = []
        var description: String { read.joined(separator: " ") }

        init(from decoder: any Decoder) throws {
            var list = try decoder.unkeyedContainer()
            let kinds = try list.decode(String.self)
            for kind in kinds {
                let index = list.currentIndex
                if kind == "o" {
                    let object = try list.nestedContainer(keyedBy: Key.self)
                    #expect(Outcome.path(object.codingPath) == ["#\(index)"])
                    read.append(try object.decode(String.self, forKey: "name"))
                } else {
                    var array = try list.nestedUnkeyedContainer()
                    #expect(Outcome.path(array.codingPath) == ["#\(index)"])
                    var sum = 0
                    while !array.isAtEnd { sum += try array.decode(Int.self) }
                    read.append("\(sum)")
                }
                #expect(list.currentIndex == index + 1, "a nested container moves the index past its element")
            }
        }
    }

    @Test func unkeyedNestingReadsEveryElement() {
        check(UnkeyedNesting.self, #"["oao", {"name": "a"}, [1, 2, 3], {"name": "b"}]"#, .value("a 6 b"))
    }

    @Test(arguments: [
        KeyedNestingCase(json: #"["o", null]"#, expected: .valueNotFound("Dictionary<String, Any>", path: ["#1"])),
        KeyedNestingCase(json: #"["o", [1]]"#, expected: .typeMismatch("Dictionary<String, Any>", path: ["#1"])),
        KeyedNestingCase(json: #"["a", null]"#, expected: .valueNotFound("Array<Any>", path: ["#1"])),
        KeyedNestingCase(json: #"["a", "x"]"#, expected: .typeMismatch("Array<Any>", path: ["#1"])),
        KeyedNestingCase(json: #"["oa", {"name": "a"}, [1, null]]"#, expected: .valueNotFound("Int", path: ["#2", "#1"])),
        KeyedNestingCase(json: #"["o", {"name": 5}]"#, expected: .typeMismatch("String", path: ["#1", "name"])),
    ])
    func unkeyedNestingFails(_ testCase: KeyedNestingCase) {
        check(UnkeyedNesting.self, testCase.json, testCase.expected)
    }

    /// At the end of an unkeyed container a nested container is `valueNotFound` at the next
    /// index, as `JSONDecoder` says; the type it names differs (below), and the index stays.
    @Test(arguments: ["o", "a", "s"])
    func nestedContainerAtTheEnd(_ kind: String) {
        struct AtEnd: Decodable {
            init(from decoder: any Decoder) throws {
                var list = try decoder.unkeyedContainer()
                let kind = try list.decode(String.self)
                defer { #expect(list.currentIndex == 1) }
                switch kind {
                case "o": _ = try list.nestedContainer(keyedBy: Key.self)
                case "a": _ = try list.nestedUnkeyedContainer()
                default: _ = try list.superDecoder()
                }
            }
        }
        let oracle = DecodingOracle()
        let json = #"["\#(kind)"]"#
        let ours = Outcome(oracle.ours(AtEnd.self, json))
        let foundation = Outcome(oracle.foundation(AtEnd.self, json))
        // The type ours names: the nested key type, `[Any]`, `Any`; JSONDecoder names
        // `KeyedDecodingContainer<Key>`, `UnkeyedDecodingContainer`, `Decoder`.
        let type = ["o": "Key", "a": "Array<Any>", "s": "Any"][kind]!
        #expect(ours == .valueNotFound(type, path: ["#1"]))
        #expect(foundation.typeLeftOut == .valueNotFound("_", path: ["#1"]))
    }

    // MARK: In a single-value position

    /// A model whose own `init(from:)` asks for a single-value container and decodes a keyed
    /// model from it: the nested model's paths continue from where the single value was.
    struct Wrapped: Decodable, CustomStringConvertible {
        let inner: KeyedNesting
        var description: String { "wrapped \(inner)" }
        init(from decoder: any Decoder) throws { inner = try decoder.singleValueContainer().decode(KeyedNesting.self) }
    }

    struct Holder: Decodable, CustomStringConvertible {
        let items: [Wrapped]
        var description: String { items.map(\.description).joined(separator: ", ") }
    }

    @Test func singleValuePositionKeepsThePath() {
        check(Wrapped.self, #"{"point": {"x": 5, "y": 6}, "list": []}"#, .value("wrapped x=5 y=6 n=0"))
        check(
            Holder.self, #"{"items": [{"point": {"x": 1, "y": 2}, "list": []}, {"point": {"x": 1, "y": true}, "list": []}]}"#,
            .typeMismatch("Int", path: ["items", "#1", "point", "y"]))
        check(Wrapped.self, "null", .valueNotFound("Dictionary<String, Any>", path: []))
        check(Wrapped.self, "[1]", .typeMismatch("Dictionary<String, Any>", path: []))
    }
}
