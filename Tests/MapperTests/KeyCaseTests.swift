import Foundation
import Testing

@testable import Mapper

/// The key conversions agree with `JSONDecoder`'s `convertFromSnakeCase`, which is the oracle:
/// a type that lists its container's keys reads them as `JSONDecoder` converted them.
struct KeyCaseTests {
    /// The keys of one JSON object as `JSONDecoder` hands them to a keyed container.
    struct ConvertedKeys: Decodable {
        struct Key: CodingKey {
            let stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        let keys: [String: String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            var keys: [String: String] = [:]
            for key in container.allKeys { keys[try container.decode(String.self, forKey: key)] = key.stringValue }
            self.keys = keys
        }
    }

    /// What `JSONDecoder` makes of each key (each key maps to itself as its value).
    static func foundationConversions(_ keys: [String]) throws -> [String: String] {
        let object = Dictionary(keys.map { ($0, $0) }, uniquingKeysWith: { first, _ in first })
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(ConvertedKeys.self, from: JSONSerialization.data(withJSONObject: object)).keys
    }

    /// Every key of up to `length` characters from `alphabet`.
    static func keys(of alphabet: String, upTo length: Int) -> [String] {
        var keys: [String] = [""]
        var last: [String] = [""]
        for _ in 0..<length {
            last = last.flatMap { prefix in alphabet.map { prefix + String($0) } }
            keys += last
        }
        return keys
    }

    @Test func camelCaseIsJSONDecodersConversion() throws {
        // Every key of up to five characters from a lowercase and an uppercase letter, a digit
        // and the underscore (3 906 keys), and a few longer and non-ASCII ones.
        let keys =
            Self.keys(of: "aB1_", upTo: 5) + ["first_name", "user_id", "__a__b__", "URL_path", "a_2fa", "id2x_y", "x_id2x", "é_clair", "ß_x"]
        // One object per key: two keys that convert alike would collide in one.
        for key in keys {
            let foundation = try Self.foundationConversions([key])
            #expect(KeyCase.camelCase(key) == foundation[key], "\(key)")
            if let fast = KeyCase.asciiCamelCase(key) { #expect(fast == KeyCase.generalCamelCase(key), "\(key)") }
        }
    }

    @Test func snakeCaseFastPathMatchesTheGeneralOne() {
        for key in Self.keys(of: "aB1_", upTo: 5) {
            #expect(KeyCase.snakeCase(key) == KeyCase.generalSnakeCase(key), "\(key)")
        }
        #expect(KeyCase.snakeCase("firstName") == "first_name")
        #expect(KeyCase.snakeCase("URLPath") == "u_r_l_path")
        #expect(KeyCase.snakeCase("énergieTotale") == "énergie_totale")
    }
}
