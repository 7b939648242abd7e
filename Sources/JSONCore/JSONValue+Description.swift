extension JSONValue {
    /// The longest excerpt of a value that error messages quote, in characters.
    static let excerptLength = 60

    /// Compact JSON text of the value, cut to `excerptLength` characters with `…`.
    package var excerpt: String {
        // Serialize only a bounded prefix: a Character takes at most a few bytes here, except
        // for rare long grapheme clusters, which merely shorten the excerpt.
        var writer = JSONWriter(pretty: false, limit: Self.excerptLength * 4)
        writer.write(self, indent: 0)
        let text = String(decoding: writer.output, as: UTF8.self)
        guard writer.truncated || text.count > Self.excerptLength else { return text }
        return String(text.prefix(Self.excerptLength)) + "…"
    }

    /// The type and an excerpt, e.g. `string "18"`, `number 12`, or just `null`.
    package var typedDescription: String {
        if case .null = self { return "null" }
        return "\(type) \(excerpt)"
    }
}
