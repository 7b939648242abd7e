import Foundation
import Testing

@testable import Mapper

/// `superDecoder()` and `superDecoder(forKey:)` of keyed and unkeyed containers, every
/// `decodeNil`, `decodeIfPresent`, `contains`, and the special types (`Data`, `URL`, `Decimal`),
/// against `JSONDecoder`.
struct SuperDecoderAndNilTests {
    private func check<T: Decodable>(
        _ type: T.Type, _ json: String, _ expected: Outcome, oracle: DecodingOracle = DecodingOracle(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let ours = Outcome(oracle.ours(type, json))
        #expect(ours == expected, sourceLocation: sourceLocation)
        let foundation = Outcome(oracle.foundation(type, json))
        #expect(ours.agrees(withFoundation: foundation), "JSONDecoder: \(foundation)", sourceLocation: sourceLocation)
    }

    /// A base class's part of a model, as a subclass encodes it: under `super`, or under a key.
    struct Base: Decodable, CustomStringConvertible {
        let id: Int
        var description: String { "base \(id)" }
    }

    /// Reads `super` through `superDecoder()` and `parent` through `superDecoder(forKey:)`, each
    /// as an optional `Base` (a missing key gives a decoder of null).
    struct Derived: Decodable, CustomStringConvertible {
        let viaSuper: Base?
        let viaKey: Base?
        let superPath: [String]
        let keyPath: [String]
        var description: String { "\(viaSuper?.description ?? "nil") at \(superPath); \(viaKey?.description ?? "nil") at \(keyPath)" }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            let superDecoder = try container.superDecoder()
            superPath = Outcome.path(superDecoder.codingPath)
            viaSuper = try Base?(from: superDecoder)
            let keyed = try container.superDecoder(forKey: "parent")
            keyPath = Outcome.path(keyed.codingPath)
            viaKey = try Base?(from: keyed)
        }
    }

    @Test func keyedSuperDecoders() {
        check(
            Derived.self, #"{"super": {"id": 1}, "parent": {"id": 2}}"#,
            .value(#"base 1 at ["super"]; base 2 at ["parent"]"#))
        check(Derived.self, "{}", .value(#"nil at ["super"]; nil at ["parent"]"#))
        check(Derived.self, #"{"super": {"id": "1"}}"#, .typeMismatch("Int", path: ["super", "id"]))
        check(Derived.self, #"{"parent": []}"#, .typeMismatch("Dictionary<String, Any>", path: ["parent"]))
    }

    /// `super` is looked up as it is spelt, whatever the key strategy: `superDecoder()`'s key is
    /// not a property name.
    @Test func superKeyUnderTheSnakeCaseStrategy() {
        let oracle = DecodingOracle(keys: .convertFromSnakeCase)
        check(Derived.self, #"{"super": {"id": 3}, "parent": {"id": 4}}"#, .value(#"base 3 at ["super"]; base 4 at ["parent"]"#), oracle: oracle)
    }

    /// `superDecoder()` of an unkeyed container decodes the next element and moves past it.
    struct SuperElements: Decodable, CustomStringConvertible {
        var read: [String] = []
        var description: String { read.joined(separator: " ") }

        init(from decoder: any Decoder) throws {
            var list = try decoder.unkeyedContainer()
            while !list.isAtEnd {
                let element = try list.superDecoder()
                read.append("\(Outcome.path(element.codingPath)):\(try Int?(from: element).map(String.init) ?? "nil")")
            }
        }
    }

    @Test func unkeyedSuperDecoders() {
        check(SuperElements.self, "[4, null, 6]", .value("[\"#0\"]:4 [\"#1\"]:nil [\"#2\"]:6"))
        check(SuperElements.self, #"[4, "x"]"#, .typeMismatch("Int", path: ["#1"]))
    }

    // MARK: decodeNil

    /// Every `decodeNil` and what follows it: `null`s skipped, other values read as `Int`.
    struct Nils: Decodable, CustomStringConvertible {
        var read: [String] = []
        var description: String { read.joined(separator: " ") }

        init(from decoder: any Decoder) throws {
            let root = try decoder.container(keyedBy: Key.self)
            read.append("a:\(try root.decodeNil(forKey: "a"))")
            read.append("b:\(try root.decodeNil(forKey: "b"))")
            read.append("contains c:\(root.contains("c")) d:\(root.contains("d"))")
            var list = try root.nestedUnkeyedContainer(forKey: "list")
            while !list.isAtEnd {
                let index = list.currentIndex
                if try list.decodeNil() {
                    #expect(list.currentIndex == index + 1, "a null is passed over")
                    read.append("nil")
                } else {
                    #expect(list.currentIndex == index, "a value is not passed over")
                    read.append("\(try list.decode(Int.self))")
                }
            }
            // At the end: `valueNotFound` at the next index, when the key `end` asks for it.
            if try root.decodeIfPresent(Bool.self, forKey: "end") == true { _ = try list.decodeNil() }
            let single = try root.superDecoder(forKey: "single").singleValueContainer()
            read.append("single:\(single.decodeNil())")
        }
    }

    @Test func decodeNilEverywhere() {
        check(
            Nils.self, #"{"a": null, "b": 0, "c": null, "list": [null, 1, null], "single": null}"#,
            .value("a:true b:false contains c:true d:false nil 1 nil single:true"))
        check(Nils.self, #"{"a": [], "b": {}, "list": [], "single": 5}"#, .value("a:false b:false contains c:false d:false single:false"))
        check(Nils.self, #"{"b": 0, "list": []}"#, .keyNotFound("a", path: []))
        check(Nils.self, #"{"a": null, "list": []}"#, .keyNotFound("b", path: []))
        // `decodeNil()` at the end: the same path; JSONDecoder names the type `Never`.
        let atEnd = #"{"a": 1, "b": 2, "list": [1], "end": true}"#
        #expect(Outcome(DecodingOracle().ours(Nils.self, atEnd)) == .valueNotFound("Optional<Any>", path: ["list", "#1"]))
        #expect(Outcome(DecodingOracle().foundation(Nils.self, atEnd)).typeLeftOut == .valueNotFound("_", path: ["list", "#1"]))
        check(Nils.self, #"{"a": 1, "b": 2, "list": [], "end": 1}"#, .typeMismatch("Bool", path: ["end"]))
    }

    /// `decodeIfPresent`: nil for a missing key and for null, the value or its error otherwise.
    struct Optionals: Decodable, CustomStringConvertible {
        let text: String?
        let number: Int8?
        let nested: Base?
        var description: String { "\(text ?? "nil") \(number.map(String.init) ?? "nil") \(nested?.description ?? "nil")" }
    }

    @Test func decodeIfPresentPaths() {
        check(Optionals.self, #"{"text": "t", "number": 8, "nested": {"id": 1}}"#, .value("t 8 base 1"))
        check(Optionals.self, #"{"text": null, "nested": null}"#, .value("nil nil nil"))
        check(Optionals.self, #"{"text": 1}"#, .typeMismatch("String", path: ["text"]))
        check(Optionals.self, #"{"number": 300}"#, .dataCorrupted(path: ["number"]))
        check(Optionals.self, #"{"nested": {"id": null}}"#, .valueNotFound("Int", path: ["nested", "id"]))
    }

    // MARK: Data, URL, Decimal

    struct Special: Decodable, CustomStringConvertible {
        let data: Data?
        let url: URL?
        let decimal: Decimal?
        var description: String {
            "\(data.map { Array($0).description } ?? "nil") \(url?.absoluteString ?? "nil") \(decimal.map { "\($0)" } ?? "nil")"
        }
    }

    @Test func specialTypes() {
        check(
            Special.self, #"{"data": "AAEC/w==", "url": "https://example.com/a%20b", "decimal": 12.5}"#,
            .value("[0, 1, 2, 255] https://example.com/a%20b 12.5"))
        check(Special.self, #"{"decimal": 7}"#, .value("nil nil 7"))
        check(Special.self, #"{"decimal": 0.1}"#, .value("nil nil 0.1"))
        check(Special.self, #"{"data": "not base64!"}"#, .dataCorrupted(path: ["data"]))
        check(Special.self, #"{"data": 5}"#, .typeMismatch("String", path: ["data"]))
        check(Special.self, #"{"url": ""}"#, .dataCorrupted(path: ["url"]))
        check(Special.self, #"{"url": 5}"#, .typeMismatch("String", path: ["url"]))
    }

    /// A `Decimal` from anything but a number is refused; ours names `Decimal`, where
    /// `JSONDecoder` (which reads a Decimal through its own keyed representation) may differ.
    @Test func decimalFromAString() {
        let oracle = DecodingOracle()
        #expect(Outcome(oracle.ours(Special.self, #"{"decimal": "1"}"#)) == .typeMismatch("Decimal", path: ["decimal"]))
        #expect(Outcome(oracle.ours(Decimal.self, "null")) == .valueNotFound("Decimal", path: []))
        #expect(Outcome(oracle.foundation(Special.self, #"{"decimal": "1"}"#)).typeLeftOut == .typeMismatch("_", path: ["decimal"]))
    }

    /// Containers asked of the wrong kind of value at the root.
    @Test func containersOfTheWrongKind() {
        struct Object: Decodable { init(from decoder: any Decoder) throws { _ = try decoder.container(keyedBy: Key.self) } }
        struct List: Decodable { init(from decoder: any Decoder) throws { _ = try decoder.unkeyedContainer() } }
        check(Object.self, "3", .typeMismatch("Dictionary<String, Any>", path: []))
        check(Object.self, #""x""#, .typeMismatch("Dictionary<String, Any>", path: []))
        check(List.self, "true", .typeMismatch("Array<Any>", path: []))
        check(List.self, "null", .valueNotFound("Array<Any>", path: []))
        check(List.self, "{}", .typeMismatch("Array<Any>", path: []))
    }
}
