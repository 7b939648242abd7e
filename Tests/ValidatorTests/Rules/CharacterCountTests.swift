import Testing

@testable import Validator

/// The length rules' fast Character count gives exactly `String.count`, on texts built from
/// the scalars around the edges of its fast path: ASCII, CR and LF, the two-byte scalars below
/// U+0300 it counts itself, and the combining marks, joiners, Hangul, flags and emoji above it
/// that make it ask `String` instead.
struct CharacterCountTests {
    /// SplitMix64: the same seed, the same texts.
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

    static let palette: [String] = [
        "a", "Z", " ", "\r", "\n", "\r\n", "\u{7F}", "\u{80}", "\u{AD}", "é", "ß", "\u{2FF}", "\u{300}", "\u{301}", "e\u{301}",
        "\u{36F}", "\u{200D}", "\u{FE0F}", "\u{1100}\u{1161}", "\u{AC00}", "🇫🇷", "😀", "👨‍👩‍👧", "\u{600}", "\u{903}", "ก",
    ]

    @Test func fastCountMatchesStringCount() {
        var generator = Generator(state: 14)
        for _ in 0..<5_000 {
            let pieces = Int.random(in: 0...24, using: &generator)
            var text = ""
            for _ in 0..<pieces {
                // Mostly ASCII, as real texts are, so the eight-byte steps run too.
                text += Bool.random(using: &generator) ? "abcdefgh" : Self.palette.randomElement(using: &generator)!
            }
            #expect(StringRules.characterCount(text) == text.count, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test func latinTextIsCountedWithoutGraphemeBreaking() {
        #expect(StringRules.characterCount("Surname-42é") == 11)
        #expect(StringRules.characterCount("Zürich, São Paulo, Montréal") == 27)
        #expect(StringRules.characterCount("e\u{301}") == 1)
        #expect(StringRules.characterCount("a\r\nb") == 3)
        #expect(StringRules.characterCount("") == 0)
    }
}
