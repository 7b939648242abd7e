import Foundation

/// The key conversions of `convertFromSnakeCase`, as `JSONDecoder` makes them, with a fast path
/// for ASCII keys.
///
/// A small response is mapped with a fresh `DecodingContext`, so each of its keys is converted
/// once per call: through `Character`s, `lowercased()` and Foundation's `capitalized`, that cost
/// more than decoding the values. An ASCII key is converted byte by byte instead; a key for which
/// the byte rules could differ from Foundation's (a non-ASCII character, a word after the first
/// that holds a digit or starts with one) takes the general path.
enum KeyCase {
    /// `first_name` → `firstName`: leading and trailing underscores kept, the words between
    /// joined, the first lowercased and the others capitalized; a key of one word unchanged.
    static func camelCase(_ key: String) -> String {
        asciiCamelCase(key) ?? generalCamelCase(key)
    }

    /// `firstName` → `first_name`: the usual inverse of `camelCase`.
    static func snakeCase(_ key: String) -> String {
        asciiSnakeCase(key) ?? generalSnakeCase(key)
    }

    /// `camelCase` through `Character`s and Foundation, for any key.
    static func generalCamelCase(_ key: String) -> String {
        guard let first = key.firstIndex(where: { $0 != "_" }) else { return key }
        var last = key.index(before: key.endIndex)
        while key[last] == "_" { last = key.index(before: last) }
        let middle = key[first...last]
        let words = middle.split(separator: "_")
        guard words.count > 1 else { return key }
        let joined = words[0].lowercased() + words.dropFirst().map { $0.capitalized }.joined()
        return String(key[..<first]) + joined + String(key[key.index(after: last)...])
    }

    /// `snakeCase` through `Character`s, for any key.
    static func generalSnakeCase(_ key: String) -> String {
        var result = ""
        result.reserveCapacity(key.utf8.count + 4)
        for character in key {
            if character.isUppercase {
                if !result.isEmpty { result.append("_") }
                result.append(contentsOf: character.lowercased())
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// `camelCase` byte by byte, or nil when the key needs the general path.
    static func asciiCamelCase(_ key: String) -> String? {
        let bytes = Array(key.utf8)
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        let underscore = UInt8(ascii: "_")
        guard let first = bytes.firstIndex(where: { $0 != underscore }), let last = bytes.lastIndex(where: { $0 != underscore }) else {
            return key
        }
        let words = bytes[first...last].split(separator: underscore)
        guard words.count > 1 else { return key }
        var result = [UInt8](bytes[..<first])
        result.reserveCapacity(bytes.count)
        result.append(contentsOf: words[0].map(lowercase))
        for word in words.dropFirst() {
            // Foundation capitalizes each word within a word too (after a digit, for one): only
            // words of letters are certain to give one capital.
            guard word.allSatisfy(isLetter) else { return nil }
            result.append(uppercase(word[word.startIndex]))
            result.append(contentsOf: word.dropFirst().map(lowercase))
        }
        result.append(contentsOf: bytes[(last + 1)...])
        return String(decoding: result, as: UTF8.self)
    }

    /// `snakeCase` byte by byte, or nil when the key is not ASCII.
    static func asciiSnakeCase(_ key: String) -> String? {
        var result: [UInt8] = []
        result.reserveCapacity(key.utf8.count + 4)
        for byte in key.utf8 {
            guard byte < 0x80 else { return nil }
            if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") {
                if !result.isEmpty { result.append(UInt8(ascii: "_")) }
                result.append(byte | 0x20)
            } else {
                result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    private static func uppercase(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte & ~0x20 : byte
    }
}
