import Foundation

/// A multipart/form-data body (RFC 7578): text fields and files, in order.
public struct MultipartFormData: Sendable {
    /// One part of the form.
    public struct Part: Sendable {
        /// Where a part's content comes from.
        public enum Content: Sendable {
            /// Bytes in memory.
            case data(Data)
            /// A file, copied in chunks when the body is written.
            case file(URL)
        }

        /// The field name.
        public var name: String
        /// The file name announced to the server, for file parts.
        public var filename: String?
        /// The part's media type, for file parts.
        public var contentType: String?
        /// The part's content.
        public var content: Content
    }

    /// The boundary between parts: 1–70 characters of RFC 2046's `bchars` (letters, digits,
    /// `'()+_,-./:=?` and a space not at the end), or the body is refused when written.
    public let boundary: String
    /// The parts, in order.
    public private(set) var parts: [Part] = []

    /// An empty form with a random boundary.
    public init(boundary: String = "APILayer-\(UUID().uuidString)") {
        self.boundary = boundary
    }

    /// The `Content-Type` header value, boundary included (quoted when it holds a character a
    /// header token cannot).
    public var contentType: String {
        let token = !boundary.isEmpty && boundary.unicodeScalars.allSatisfy { Self.tokenCharacters.contains($0) }
        return "multipart/form-data; boundary=" + (token ? boundary : "\"\(boundary)\"")
    }

    /// Adds a text field.
    public mutating func append(_ value: String, name: String) {
        parts.append(Part(name: name, filename: nil, contentType: nil, content: .data(Data(value.utf8))))
    }

    /// Adds a file part from memory.
    ///
    /// Without a `contentType`, the part announces the type `MIMEType.detect(_:filename:)`
    /// finds from the data's first bytes and the file name (`application/octet-stream` when
    /// neither tells).
    public mutating func append(_ data: Data, name: String, filename: String, contentType: String? = nil) {
        let type = contentType ?? MIMEType.detect(data, filename: filename).name
        parts.append(Part(name: name, filename: filename, contentType: type, content: .data(data)))
    }

    /// Adds a file part read from `fileURL` when the body is written.
    ///
    /// Without a `contentType`, the part announces the type found from the file's first bytes
    /// (read now) and the announced file name, as `MIMEType.detect(_:filename:)` decides.
    ///
    /// - Throws: `CocoaError` when the file does not exist.
    public mutating func append(fileAt fileURL: URL, name: String, filename: String? = nil, contentType: String? = nil) throws {
        guard FileManager.default.isReadableFile(atPath: fileURL.path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: fileURL.path])
        }
        let announced = filename ?? fileURL.lastPathComponent
        let type = contentType ?? MIMEType.detect(MIMEType.head(ofFileAt: fileURL), filename: announced).name
        parts.append(Part(name: name, filename: announced, contentType: type, content: .file(fileURL)))
    }

    /// Writes the whole body to `fileURL`, copying file parts in 1 MiB chunks.
    ///
    /// - Throws: `NetOpsError` of kind `.invalidBody` (before anything is written) when the
    ///   boundary is not 1–70 of RFC 2046's characters, or a part's name, file name or content
    ///   type holds a CR, LF, NUL or other control character; else the error of a file.
    public func write(to fileURL: URL) throws {
        try check()
        guard FileManager.default.createFile(atPath: fileURL.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: fileURL.path])
        }
        let output = try FileHandle(forWritingTo: fileURL)
        defer { try? output.close() }
        for part in parts {
            try output.write(contentsOf: Data(head(of: part).utf8))
            switch part.content {
            case let .data(data):
                try output.write(contentsOf: data)
            case let .file(source):
                let input = try FileHandle(forReadingFrom: source)
                defer { try? input.close() }
                while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                    try output.write(contentsOf: chunk)
                }
            }
            try output.write(contentsOf: Data("\r\n".utf8))
        }
        try output.write(contentsOf: Data("--\(boundary)--\r\n".utf8))
    }

    private func head(of part: Part) -> String {
        var disposition = "form-data; name=\"\(Self.quoted(part.name))\""
        if let filename = part.filename { disposition += "; filename=\"\(Self.quoted(filename))\"" }
        var head = "--\(boundary)\r\nContent-Disposition: \(disposition)\r\n"
        if let contentType = part.contentType { head += "Content-Type: \(contentType)\r\n" }
        return head + "\r\n"
    }

    /// A name or file name as a quoted header parameter, as RFC 7578 and HTML write it: `"` as
    /// `%22` (CR, LF and NUL never get here: `check()` refuses them).
    private static func quoted(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "%22")
    }

    /// RFC 2046's `bcharsnospace`; a boundary may also hold spaces, except at its end.
    private static let boundaryCharacters = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=?".unicodeScalars)
    /// RFC 9110's `tchar`: what a header parameter may hold unquoted.
    private static let tokenCharacters = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!#$%&'*+-.^_`|~".unicodeScalars)

    /// Refuses a boundary RFC 2046 does not allow, and a part header field that would end its
    /// line or the header (a CR, LF, NUL or other control character).
    ///
    /// - Throws: `NetOpsError` of kind `.invalidBody` naming the boundary or the part.
    package func check() throws(NetOpsError) {
        func refuse(_ reason: String) -> NetOpsError { NetOpsError(.invalidBody(reason: reason), url: nil) }
        let scalars = boundary.unicodeScalars
        guard (1...70).contains(scalars.count), scalars.last != " ",
            scalars.allSatisfy({ $0 == " " || Self.boundaryCharacters.contains($0) })
        else {
            throw refuse("the multipart boundary must be 1 to 70 of RFC 2046's characters (letters, digits, '()+_,-./:=? and inner spaces)")
        }
        for (index, part) in parts.enumerated() {
            let fields: [(String, String?)] = [("name", part.name), ("file name", part.filename), ("content type", part.contentType)]
            for case let (field, value?) in fields where value.unicodeScalars.contains(where: Self.isControl) {
                throw refuse("the \(field) of multipart part \(index + 1) holds a CR, LF, NUL or other control character")
            }
        }
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F
    }
}

extension MultipartFormData {
    /// A new path in the temporary folder for a form's body (nothing is written there yet).
    package static func temporaryBodyFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-multipart-\(UUID().uuidString).body")
    }
}
