import Foundation
import Testing

@testable import Mapper

/// The key conversions agree with `JSONDecoder`'s `convertFromSnakeCase`, which is the oracle:
/// a type that lists its container's keys reads them as `JSONDecoder` converted them.
struct KeyCaseTests {
    /// SplitMix64: the same seed, the same keys.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

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

    @Test func camelCaseIsJSONDecodersConversion() throws {
        var generator = Generator(state: 3)
        let alphabet = Array("abcxyzABCXYZ0129_____")
        var keys: [String] = ["first_name", "user_id", "_private", "plain", "__a__b__", "URL_path", "a_2fa", "id2x_y", "x_id2x", "é_clair", "ß_x"]
        for _ in 0..<3_000 {
            keys.append(String((0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }))
        }
        // One object per key: two keys that convert alike would collide in one.
        for key in keys {
            let foundation = try Self.foundationConversions([key])
            #expect(KeyCase.camelCase(key) == foundation[key], "\(key)")
            if let fast = KeyCase.asciiCamelCase(key) { #expect(fast == KeyCase.generalCamelCase(key), "\(key)") }
        }
    }

    @Test func snakeCaseFastPathMatchesTheGeneralOne() {
        var generator = Generator(state: 5)
        let alphabet = Array("abcxyzABCXYZ0129_")
        for _ in 0..<3_000 {
            let key = String((0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            #expect(KeyCase.snakeCase(key) == KeyCase.generalSnakeCase(key), "\(key)")
        }
        #expect(KeyCase.snakeCase("firstName") == "first_name")
        #expect(KeyCase.snakeCase("URLPath") == "u_r_l_path")
        #expect(KeyCase.snakeCase("énergieTotale") == "énergie_totale")
    }
}
