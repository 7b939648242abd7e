extension MIMEType {
    /// The type a file extension (with or without its dot, any case) names, e.g. `JPG`, `.tar.gz`'s
    /// `gz`; nil for an extension it does not know.
    public init?(fileExtension: String) {
        var key = fileExtension.lowercased()
        if key.hasPrefix(".") { key.removeFirst() }
        guard let known = Self.byExtension[key] else { return nil }
        self = known
    }

    /// The type the extension of `filename` names (`holiday.JPEG` is `image/jpeg`); nil without
    /// an extension or for one it does not know. A leading dot alone (`.profile`) is no extension.
    public init?(filename: String) {
        let last = filename.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? filename
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return nil }
        self.init(fileExtension: String(last[last.index(after: dot)...]))
    }

    /// Extensions (lowercase, no dot) and their types: the sniffed types and common web ones.
    private static let byExtension: [String: MIMEType] = {
        var table: [String: MIMEType] = [:]
        for type in [jpeg, png, gif, webp, heic, heif, pdf, zip, gzip, mp4, m4a, mp3, wav, json, xml, plainText, octetStream] {
            table[type.fileExtension] = type
        }
        table["jpeg"] = .jpeg
        table["jpe"] = .jpeg
        table["gzip"] = .gzip
        table["tgz"] = .gzip
        table["m4v"] = .mp4
        table["text"] = .plainText
        table["log"] = .plainText
        table["csv"] = MIMEType(name: "text/csv", fileExtension: "csv")
        table["html"] = MIMEType(name: "text/html", fileExtension: "html")
        table["htm"] = table["html"]
        table["css"] = MIMEType(name: "text/css", fileExtension: "css")
        table["js"] = MIMEType(name: "text/javascript", fileExtension: "js")
        table["svg"] = MIMEType(name: "image/svg+xml", fileExtension: "svg")
        return table
    }()
}
