import Foundation

extension JSONValue {
    /// The deepest container nesting `init(parsing:)` accepts before it throws `.tooDeep`.
    public static let defaultMaxDepth = 512

    /// Parses one JSON document (RFC 8259) from UTF-8 bytes.
    ///
    /// The parser is strict: no trailing commas, no leading zeros, no comments, no duplicate keys,
    /// only the escapes RFC 8259 defines (a UTF-16 surrogate pair becomes one scalar, a lone
    /// surrogate is an error), well-formed UTF-8 only, and nothing but whitespace after the
    /// document. A leading UTF-8 byte order mark is skipped. A number without fraction or exponent
    /// that fits in `Int` becomes `.int`; every other number becomes `.double` (an integer too big
    /// for `Int` included); a number beyond `Double`'s range is an error. The parser does not
    /// recurse, so hostile nesting gives a `.tooDeep` error, never a stack overflow.
    /// - Parameter data: The document's bytes.
    /// - Throws: `JSONParseError` with the byte offset and the reason.
    public init(parsing data: Data) throws {
        try self.init(parsing: data, maxDepth: Self.defaultMaxDepth)
    }

    /// Parses one JSON document, allowing containers nested at most `maxDepth` levels deep.
    ///
    /// See `init(parsing:)` for the grammar; `[]` at the top is one level deep.
    /// - Throws: `JSONParseError`.
    public init(parsing data: Data, maxDepth: Int) throws {
        self = try data.withUnsafeBytes { raw throws(JSONParseError) -> JSONValue in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self), maxDepth: maxDepth)
            return try parser.parseDocument()
        }
    }

    /// Parses one JSON document from the UTF-8 form of `text`; see `init(parsing:)`.
    /// - Throws: `JSONParseError`.
    public init(parsing text: String) throws {
        try self.init(parsing: Data(text.utf8))
    }
}
