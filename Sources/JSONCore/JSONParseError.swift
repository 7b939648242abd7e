/// Why a byte sequence is not one RFC 8259 JSON document, and where the parser stopped.
///
/// `offset` counts bytes from the very first input byte (0-based), a skipped byte order mark
/// included. The description is one line, e.g.
/// `invalid JSON at byte 12: expected ',' or '}' after an object member`.
public struct JSONParseError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The kinds of failure, for callers (and tests) that branch on the cause.
    public enum Kind: String, Sendable, Equatable {
        /// A byte that the grammar does not allow at this place.
        case unexpectedByte
        /// The input ended inside a value, or was empty.
        case unexpectedEnd
        /// Bytes inside a string that are not well-formed UTF-8.
        case invalidUTF8
        /// A backslash escape that RFC 8259 does not define, or a lone UTF-16 surrogate.
        case invalidEscape
        /// A raw control character (U+0000–U+001F) inside a string.
        case controlCharacter
        /// A number that breaks the grammar (leading zero, missing digits…).
        case invalidNumber
        /// A number whose magnitude does not fit in a `Double`.
        case numberOutOfRange
        /// Containers nested deeper than the parser's limit.
        case tooDeep
        /// The same key twice in one object.
        case duplicateKey
        /// Something other than whitespace after the document.
        case trailingData
    }

    /// The byte offset (0-based, from the first byte of the input) where the problem was found.
    public var offset: Int
    /// The kind of failure.
    public var kind: Kind
    /// A human-readable explanation of the failure.
    public var reason: String

    /// Creates a parse error; the parser is the usual source of these.
    public init(offset: Int, kind: Kind, reason: String) {
        self.offset = offset
        self.kind = kind
        self.reason = reason
    }

    /// One line: `invalid JSON at byte <offset>: <reason>`.
    public var description: String {
        "invalid JSON at byte \(offset): \(reason)"
    }
}
