extension JSONValue {
    /// The longest excerpt of a value that error messages quote, in characters.
    static let excerptLength = 60

    /// Compact JSON text of the value, cut to `excerptLength` characters with `…`.
    package var excerpt: String {
        let text = jsonText
        guard text.count > Self.excerptLength else { return text }
        return String(text.prefix(Self.excerptLength)) + "…"
    }

    /// The type and an excerpt, e.g. `string "18"`, `number 12`, or just `null`.
    package var typedDescription: String {
        if case .null = self { return "null" }
        return "\(type) \(excerpt)"
    }
}
