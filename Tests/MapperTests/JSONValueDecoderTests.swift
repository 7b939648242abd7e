import Foundation
import Mapper
import Testing

/// Decoding straight from a parsed `JSONValue` gives what `JSONDecoder` gives from the bytes:
/// the same models, and errors naming the same paths.
struct JSONValueDecoderTests {
    struct Everything: Decodable, Equatable {
        let id: Int
        let smallNumber: Int8
        let unsigned: UInt16
        let ratio: Double
        let ratioFloat: Float
        let wholeAsDouble: Double
        let flag: Bool
        let name: String
        let nickname: String?
        let absent: String?
        let nested: Nested
        let matrix: [[Int]]
        let optionals: [Int?]
        let dictionary: [String: Int]
        let url: URL
        let bytes: Data
        let kind: Kind
        let single: Wrapper
    }

    struct Nested: Decodable, Equatable {
        let userID: Int?
        let titleText: String
        let tags: [String]
    }

    enum Kind: String, Decodable { case user, page }

    /// A single-value container.
    struct Wrapper: Decodable, Equatable {
        let value: Int
        init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Int.self) }
    }

    static let everything = #"""
        {"id": 7, "small_number": -8, "unsigned": 65535, "ratio": 0.25, "ratio_float": 1.5, "whole_as_double": 3,
         "flag": true, "name": "Ann", "nickname": null,
         "nested": {"title_text": "x", "tags": ["a", "b"], "user_id": 1},
         "matrix": [[1, 2], [], [3]], "optionals": [1, null, 3], "dictionary": {"snake_key": 1, "Other": 2},
         "url": "https://example.com/a?b=c", "bytes": "AQID", "kind": "page", "single": 9}
        """#

    private func both<T: Decodable & Equatable>(
        _ type: T.Type, _ json: String, at keyPath: String? = nil,
        configuration: Mapper.Configuration = Mapper.Configuration()
    ) throws -> T {
        let data = Data(json.utf8)
        let viaValue = try Mapper.map(type, from: JSONValue(parsing: data), at: keyPath, configuration: configuration)
        if keyPath == nil {
            let viaBytes = try Mapper.map(type, from: data, configuration: configuration)
            #expect(viaValue == viaBytes)
        }
        return viaValue
    }

    @Test func everyContainerKindDecodesAsJSONDecoderDoes() throws {
        let decoded = try both(Everything.self, Self.everything)
        #expect(decoded.smallNumber == -8)
        #expect(decoded.nickname == nil && decoded.absent == nil)
        #expect(decoded.nested == Nested(userID: nil, titleText: "x", tags: ["a", "b"]))
        #expect(decoded.matrix == [[1, 2], [], [3]])
        #expect(decoded.optionals == [1, nil, 3])
        #expect(decoded.dictionary == ["snake_key": 1, "Other": 2])  // dictionary keys are data: not converted
        #expect(decoded.bytes == Data([1, 2, 3]))
        #expect(decoded.single.value == 9)
        #expect(decoded.wholeAsDouble == 3)
    }

    struct CamelKeys: Decodable, Equatable {
        let firstName: String
        let userID: Int?
        let _private: Int?
        let plain: Int
    }

    @Test func keyStrategies() throws {
        let snake = #"{"first_name": "A", "user_id": 1, "_private": 2, "plain": 3}"#
        let converted = try both(CamelKeys.self, snake)
        // `user_id` becomes `userId`, not `userID`, exactly as JSONDecoder converts it.
        #expect(converted == CamelKeys(firstName: "A", userID: nil, _private: 2, plain: 3))

        var literal = Mapper.Configuration()
        literal.keyDecodingStrategy = .useDefaultKeys
        let exact = #"{"firstName": "B", "userID": 4, "plain": 5}"#
        #expect(try both(CamelKeys.self, exact, configuration: literal) == CamelKeys(firstName: "B", userID: 4, _private: nil, plain: 5))

        var custom = Mapper.Configuration()
        custom.keyDecodingStrategy = .custom { path in
            let last = path.last!.stringValue
            return CustomKey(stringValue: last.replacingOccurrences(of: "-", with: ""))
        }
        let dashed = #"{"first-Name": "C", "pla-in": 6}"#
        #expect(try both(CamelKeys.self, dashed, configuration: custom) == CamelKeys(firstName: "C", userID: nil, _private: nil, plain: 6))
    }

    struct CustomKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    struct Dated: Decodable, Equatable { let at: Date }

    @Test func dateStrategies() throws {
        let moment = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(try both(Dated.self, #"{"at": 1700000000}"#) == Dated(at: moment))

        var milliseconds = Mapper.Configuration()
        milliseconds.dateDecodingStrategy = .millisecondsSince1970
        #expect(try both(Dated.self, #"{"at": 1700000000000}"#, configuration: milliseconds) == Dated(at: moment))

        var iso = Mapper.Configuration()
        iso.dateDecodingStrategy = .iso8601
        #expect(try both(Dated.self, #"{"at": "2023-11-14T22:13:20Z"}"#, configuration: iso) == Dated(at: moment))
        #expect(try both(Dated.self, #"{"at": "2023-11-14T23:13:20+01:00"}"#, configuration: iso) == Dated(at: moment))
        #expect(try both(Dated.self, #"{"at": "2023-11-14T22:13:20.000Z"}"#, configuration: iso).at.timeIntervalSince1970 == 1_700_000_000)
        #expect(throws: MapperError.invalidValue(path: "at", reason: "Expected date string to be ISO8601-formatted.")) {
            try Mapper.map(Dated.self, from: JSONValue(parsing: #"{"at": "yesterday"}"#), configuration: iso)
        }

        var deferred = Mapper.Configuration()
        deferred.dateDecodingStrategy = .deferredToDate
        #expect(try both(Dated.self, #"{"at": 0}"#, configuration: deferred) == Dated(at: Date(timeIntervalSinceReferenceDate: 0)))

        var custom = Mapper.Configuration()
        custom.dateDecodingStrategy = .custom { decoder in
            Date(timeIntervalSince1970: Double(try decoder.singleValueContainer().decode(String.self))!)
        }
        #expect(try both(Dated.self, #"{"at": "1700000000"}"#, configuration: custom) == Dated(at: moment))

        var formatted = Mapper.Configuration()
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        formatted.dateDecodingStrategy = .formatted(formatter)
        #expect(try both(Dated.self, #"{"at": "2023-11-14 22:13:20"}"#, configuration: formatted) == Dated(at: moment))
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        let json: String
        let keyPath: String?
        let error: MapperError
        var testDescription: String { error.description }
    }

    struct Page: Decodable { let items: [Item] }
    struct Item: Decodable {
        let id: Int
        let owner: Owner?
        let scores: [Double]
    }
    struct Owner: Decodable { let login: String }

    @Test(arguments: [
        ErrorCase(
            json: #"{"items": [{"id": 1, "scores": []}, {"scores": []}]}"#, keyPath: nil,
            error: .missingKey(path: "items.1", key: "id")),
        ErrorCase(
            json: #"{"items": [{"id": 1.5, "scores": []}]}"#, keyPath: nil,
            error: .invalidValue(path: "items.0.id", reason: "Number 1.5 does not fit in Int.")),
        ErrorCase(
            json: #"{"items": [{"id": 1, "owner": {"login": 5}, "scores": []}]}"#, keyPath: nil,
            error: .typeMismatch(path: "items.0.owner.login", expected: "String")),
        ErrorCase(
            json: #"{"items": [{"id": 1, "scores": [1, null]}]}"#, keyPath: nil,
            error: .missingValue(path: "items.0.scores.1", expected: "Double")),
        ErrorCase(
            json: #"{"items": {"id": 1}}"#, keyPath: nil,
            error: .typeMismatch(path: "items", expected: "Array<Any>")),
        ErrorCase(
            json: #"{"items": [[]]}"#, keyPath: nil,
            error: .typeMismatch(path: "items.0", expected: "Dictionary<String, Any>")),
        ErrorCase(
            json: #"{"items": null}"#, keyPath: nil,
            error: .missingValue(path: "items", expected: "Array<Any>")),
        ErrorCase(
            json: #"{"data": {"page": {"items": [{"id": "x", "scores": []}]}}}"#, keyPath: "data.page",
            error: .typeMismatch(path: "data.page.items.0.id", expected: "Int")),
        ErrorCase(
            json: #"{"data": {}}"#, keyPath: "data.page",
            error: .missingKeyPath("data.page", foundUpTo: "data")),
    ])
    func errorsNameTheJSONPath(_ testCase: ErrorCase) throws {
        let json = try JSONValue(parsing: testCase.json)
        #expect(throws: testCase.error) { try Mapper.map(Page.self, from: json, at: testCase.keyPath) }
        // The bytes give the same error, through whichever path Mapper takes for them (JSONDecoder
        // words a number that does not fit differently, at the root).
        if case .invalidValue = testCase.error { return }
        #expect(throws: testCase.error) { try Mapper.map(Page.self, from: Data(testCase.json.utf8), at: testCase.keyPath) }
    }

    @Test func numbersOutOfRangeAreClearErrors() throws {
        #expect(throws: MapperError.invalidValue(path: "(root)", reason: "Number 300 does not fit in Int8.")) {
            try Mapper.map(Int8.self, from: JSONValue.int(300))
        }
        #expect(throws: MapperError.invalidValue(path: "(root)", reason: "Number 1e+300 does not fit in Float.")) {
            try Mapper.map(Float.self, from: JSONValue.double(1e300))
        }
        #expect(try Mapper.map(Int.self, from: JSONValue.double(100)) == 100)
        #expect(try Mapper.map(Int64.self, from: JSONValue(parsing: "9223372036854775807")) == Int64.max)
    }
}
