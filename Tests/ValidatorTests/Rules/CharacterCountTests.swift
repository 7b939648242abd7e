import Testing

@testable import Validator

/// The length rules' fast Character count gives exactly `String.count`, on texts built from
/// the scalars around the edges of its fast path: ASCII, CR and LF, the two-byte scalars below
/// U+0300 it counts itself, and the combining marks, joiners, Hangul, flags and emoji above it
/// that make it ask `String` instead.
struct CharacterCountTests {
    static let palette: [String] = [
        "a", "Z", " ", "\r", "\n", "\r\n", "\u{7F}", "\u{80}", "\u{AD}", "é", "ß", "\u{2FF}", "\u{300}", "\u{301}", "e\u{301}",
        "\u{36F}", "\u{200D}", "\u{FE0F}", "\u{1100}\u{1161}", "\u{AC00}", "🇫🇷", "😀", "👨‍👩‍👧", "\u{600}", "\u{903}", "ก",
    ]

    @Test func fastCountMatchesStringCount() {
        // Every sequence of up to three pieces, alone and between runs of ASCII long enough for
        // the eight-byte steps: each piece meets every other on both sides.
        var texts: [String] = [""]
        for first in Self.palette {
            texts.append(first)
            for second in Self.palette {
                texts.append(first + second)
                for third in Self.palette { texts.append(first + second + third) }
            }
        }
        for text in texts {
            for framed in [text, "abcdefgh" + text, "abcdefghi" + text + "abcdefgh", text + "xyz"] {
                #expect(StringRules.characterCount(framed) == framed.count, "\(framed.unicodeScalars.map { String($0.value, radix: 16) })")
            }
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
