import Foundation
import Testing

@testable import Mapper

/// The date and key strategies: what each reads, how each fails, which keys a container lists
/// and which path a custom strategy sees, against `JSONDecoder`.
struct StrategyTests {
    private func check<T: Decodable>(
        _ type: T.Type, _ json: String, _ expected: Outcome, oracle: DecodingOracle,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let ours = Outcome(oracle.ours(type, json))
        #expect(ours == expected, sourceLocation: sourceLocation)
        let foundation = Outcome(oracle.foundation(type, json))
        #expect(ours.agrees(withFoundation: foundation), "JSONDecoder: \(foundation)", sourceLocation: sourceLocation)
    }

    struct Dated: Decodable, CustomStringConvertible {
        let at: Date
        var description: String { "\(at.timeIntervalSince1970)" }
    }

    struct DateCase: Sendable, CustomTestStringConvertible {
        let strategy: String
        let json: String
        let expected: Outcome
        var testDescription: String { "\(strategy): \(json)" }

        var dates: JSONDecoder.DateDecodingStrategy {
            switch strategy {
            case "seconds": .secondsSince1970
            case "milliseconds": .millisecondsSince1970
            case "iso8601": .iso8601
            case "deferred": .deferredToDate
            case "custom":
                .custom { decoder in
                    let text = try decoder.singleValueContainer().decode(String.self)
                    guard let seconds = Double(text) else {
                        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not seconds"))
                    }
                    return Date(timeIntervalSince1970: seconds)
                }
            default: .formatted(Self.formatter)
            }
        }

        static var formatter: DateFormatter {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-MM-dd"
            return formatter
        }
    }

    static let dateCases: [DateCase] = [
        DateCase(strategy: "seconds", json: "1.5", expected: .value("1.5")),
        DateCase(strategy: "seconds", json: #""1""#, expected: .typeMismatch("Double", path: ["at"])),
        DateCase(strategy: "seconds", json: "null", expected: .valueNotFound("Date", path: ["at"])),
        DateCase(strategy: "milliseconds", json: "1500", expected: .value("1.5")),
        DateCase(strategy: "milliseconds", json: "true", expected: .typeMismatch("Double", path: ["at"])),
        DateCase(strategy: "iso8601", json: #""1970-01-01T00:00:02Z""#, expected: .value("2.0")),
        DateCase(strategy: "iso8601", json: #""1970-01-01T01:00:02+01:00""#, expected: .value("2.0")),
        DateCase(strategy: "iso8601", json: "2", expected: .typeMismatch("String", path: ["at"])),
        DateCase(strategy: "iso8601", json: #""1970-01-01""#, expected: .dataCorrupted(path: ["at"])),
        DateCase(strategy: "iso8601", json: "null", expected: .valueNotFound("Date", path: ["at"])),
        DateCase(strategy: "deferred", json: "-978307198", expected: .value("2.0")),
        DateCase(strategy: "deferred", json: #""x""#, expected: .typeMismatch("Double", path: ["at"])),
        DateCase(strategy: "custom", json: #""2""#, expected: .value("2.0")),
        DateCase(strategy: "custom", json: #""two""#, expected: .dataCorrupted(path: ["at"])),
        DateCase(strategy: "custom", json: "2", expected: .typeMismatch("String", path: ["at"])),
        DateCase(strategy: "formatted", json: #""1970-01-02""#, expected: .value("86400.0")),
        DateCase(strategy: "formatted", json: #""02.01.1970""#, expected: .dataCorrupted(path: ["at"])),
        DateCase(strategy: "formatted", json: "86400", expected: .typeMismatch("String", path: ["at"])),
        DateCase(strategy: "milliseconds", json: "null", expected: .valueNotFound("Date", path: ["at"])),
        DateCase(strategy: "deferred", json: "null", expected: .valueNotFound("Date", path: ["at"])),
        DateCase(strategy: "custom", json: "null", expected: .valueNotFound("Date", path: ["at"])),
        DateCase(strategy: "formatted", json: "null", expected: .valueNotFound("Date", path: ["at"])),
    ]

    @Test(arguments: dateCases)
    func dateStrategy(_ testCase: DateCase) {
        let oracle = DecodingOracle(dates: testCase.dates)
        check(Dated.self, #"{"at": \#(testCase.json)}"#, testCase.expected, oracle: oracle)
    }

    /// A date in an array and as a dictionary's value: the strategy applies wherever a `Date` is.
    @Test func datesInCollections() {
        let oracle = DecodingOracle(dates: .millisecondsSince1970)
        check([Date].self, "[1000, 2500]", .value("[1970-01-01 00:00:01 +0000, 1970-01-01 00:00:02 +0000]"), oracle: oracle)
        check([String: Date].self, #"{"a": "x"}"#, .typeMismatch("Double", path: ["a"]), oracle: oracle)
    }

    // MARK: Keys

    /// The keys a keyed container lists (`allKeys`, sorted) and whether it `contains` each.
    struct Listed: Decodable, CustomStringConvertible {
        let keys: [String]
        var description: String { keys.joined(separator: ",") }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            keys = container.allKeys.map(\.stringValue).sorted()
            for key in container.allKeys { #expect(container.contains(key)) }
            #expect(!container.contains("absent"))
        }
    }

    static let listedJSON = #"{"first_name": 1, "user_id": 2, "_private": 3, "trailing_": 4, "plain": 5, "two__under": 6}"#

    @Test func allKeysUnderEachStrategy() {
        check(
            Listed.self, Self.listedJSON, .value("_private,firstName,plain,trailing_,twoUnder,userId"),
            oracle: DecodingOracle(keys: .convertFromSnakeCase))
        check(
            Listed.self, Self.listedJSON, .value("_private,first_name,plain,trailing_,two__under,user_id"),
            oracle: DecodingOracle(keys: .useDefaultKeys))
        let upper = DecodingOracle(keys: .custom { path in Key(stringValue: path.last!.stringValue.uppercased()) })
        check(Listed.self, Self.listedJSON, .value("FIRST_NAME,PLAIN,TRAILING_,TWO__UNDER,USER_ID,_PRIVATE"), oracle: upper)
    }

    /// A `[String: …]` dictionary keeps its keys as they are under every strategy, and so do
    /// the models inside it get their own keys converted.
    struct Entry: Decodable, Equatable, CustomStringConvertible {
        let itemCount: Int
        var description: String { "\(itemCount)" }
    }

    @Test func dictionaryKeysAreData() {
        let oracle = DecodingOracle(keys: .convertFromSnakeCase)
        check([String: Entry].self, #"{"snake_key": {"item_count": 1}}"#, .value(#"["snake_key": 1]"#), oracle: oracle)
        check([String: Entry].self, #"{"snake_key": {"itemCount": 1}}"#, .value(#"["snake_key": 1]"#), oracle: oracle)
        check([String: Entry].self, #"{"snake_key": {}}"#, .keyNotFound("itemCount", path: ["snake_key"]), oracle: oracle)
    }

    /// Properties found under `convertFromSnakeCase`: by their snake form, as spelt, through a
    /// key that converts to them some other way (`two__words`), or not at all (a property with
    /// an underscore, which no converted key can equal).
    struct SnakeProperties: Decodable, CustomStringConvertible {
        let twoWords: Int
        let userID: Int?
        let withUnderscore: Int?
        var description: String { "\(twoWords) \(userID.map(String.init) ?? "nil") \(withUnderscore.map(String.init) ?? "nil")" }

        enum CodingKeys: String, CodingKey {
            case twoWords, userID
            case withUnderscore = "with_underscore"
        }
    }

    @Test func snakeCaseLookUps() {
        let oracle = DecodingOracle(keys: .convertFromSnakeCase)
        check(SnakeProperties.self, #"{"two_words": 1}"#, .value("1 nil nil"), oracle: oracle)
        check(SnakeProperties.self, #"{"twoWords": 2, "userID": 3}"#, .value("2 3 nil"), oracle: oracle)
        check(SnakeProperties.self, #"{"two__words": 4, "user_i_d": 5}"#, .value("4 5 nil"), oracle: oracle)
        check(SnakeProperties.self, #"{"two_words": 6, "with_underscore": 7}"#, .value("6 nil nil"), oracle: oracle)
        check(SnakeProperties.self, #"{"TWO_WORDS": 8}"#, .value("8 nil nil"), oracle: oracle)
        check(SnakeProperties.self, #"{"two words": 9}"#, .keyNotFound("twoWords", path: []), oracle: oracle)
        check(SnakeProperties.self, #"{"two_words": "x"}"#, .typeMismatch("Int", path: ["twoWords"]), oracle: oracle)
    }

    /// A custom key strategy is called with the path of the container and the JSON key, and its
    /// answer names the property; the error paths name the property.
    struct Nested: Decodable, CustomStringConvertible {
        struct Inner: Decodable { let value: Int }
        let inner: [Inner]
        var description: String { inner.map { "\($0.value)" }.joined(separator: ",") }
    }

    @Test func customKeyStrategySeesThePath() {
        let seen = Locked<Set<String>>([])
        let oracle = DecodingOracle(
            keys: .custom { path in
                seen.withLock { _ = $0.insert(Outcome.path(path).joined(separator: "/")) }
                return Key(stringValue: path.last!.stringValue.replacingOccurrences(of: "-", with: ""))
            })
        let json = #"{"in-ner": [{"val-ue": 1}, {"value": 2}]}"#
        _ = oracle.foundation(Nested.self, json)
        let foundationPaths = seen.withLock { paths in
            defer { paths = [] }
            return paths
        }
        check(Nested.self, json, .value("1,2"), oracle: oracle)
        let ourPaths = seen.withLock { $0 }
        #expect(ourPaths == ["in-ner", "inner/#0/val-ue", "inner/#1/value"])
        #expect(ourPaths == foundationPaths)
        check(Nested.self, #"{"in-ner": [{"val-ue": "1"}]}"#, .typeMismatch("Int", path: ["inner", "#0", "value"]), oracle: oracle)
        check(Nested.self, #"{"inner": [{}]}"#, .keyNotFound("value", path: ["inner", "#0"]), oracle: oracle)
    }
}

/// A value behind a lock, for a key strategy's closure to record into.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&value) }
    }
}
