import Foundation

/// A media type (`image/png`) with the file extension that usually goes with it (`png`).
///
/// Find the type of some bytes with `MIMEType(sniffing:)` (their first bytes decide), of a file
/// name with `MIMEType(filename:)` (its extension decides), or of both with
/// `MIMEType.detect(_:filename:)`, which multipart parts and uploads use when no type is given:
///
/// ```swift
/// let type = MIMEType.detect(photoData, filename: "IMG_0001")   // .jpeg, from the bytes
/// print(type.name, type.fileExtension)                          // "image/jpeg jpg"
/// ```
public struct MIMEType: Sendable, Hashable, CustomStringConvertible {
    /// The media type, e.g. `image/jpeg`, as a `Content-Type` header carries it.
    public let name: String
    /// The usual file extension, without a dot, e.g. `jpg`.
    public let fileExtension: String

    /// A media type and its usual file extension (given without a dot).
    public init(name: String, fileExtension: String) {
        self.name = name
        self.fileExtension = fileExtension
    }

    /// The media type's name.
    public var description: String { name }

    /// `image/jpeg`, `jpg`.
    public static let jpeg = MIMEType(name: "image/jpeg", fileExtension: "jpg")
    /// `image/png`, `png`.
    public static let png = MIMEType(name: "image/png", fileExtension: "png")
    /// `image/gif`, `gif`.
    public static let gif = MIMEType(name: "image/gif", fileExtension: "gif")
    /// `image/webp`, `webp`.
    public static let webp = MIMEType(name: "image/webp", fileExtension: "webp")
    /// `image/heic`, `heic`.
    public static let heic = MIMEType(name: "image/heic", fileExtension: "heic")
    /// `image/heif`, `heif`: a HEIF image that is not HEVC-coded.
    public static let heif = MIMEType(name: "image/heif", fileExtension: "heif")
    /// `application/pdf`, `pdf`.
    public static let pdf = MIMEType(name: "application/pdf", fileExtension: "pdf")
    /// `application/zip`, `zip`.
    public static let zip = MIMEType(name: "application/zip", fileExtension: "zip")
    /// `application/gzip`, `gz`.
    public static let gzip = MIMEType(name: "application/gzip", fileExtension: "gz")
    /// `video/mp4`, `mp4`.
    public static let mp4 = MIMEType(name: "video/mp4", fileExtension: "mp4")
    /// `audio/mp4`, `m4a`.
    public static let m4a = MIMEType(name: "audio/mp4", fileExtension: "m4a")
    /// `audio/mpeg`, `mp3`.
    public static let mp3 = MIMEType(name: "audio/mpeg", fileExtension: "mp3")
    /// `audio/wav`, `wav`.
    public static let wav = MIMEType(name: "audio/wav", fileExtension: "wav")
    /// `application/json`, `json`.
    public static let json = MIMEType(name: "application/json", fileExtension: "json")
    /// `application/xml`, `xml`.
    public static let xml = MIMEType(name: "application/xml", fileExtension: "xml")
    /// `text/plain`, `txt`.
    public static let plainText = MIMEType(name: "text/plain", fileExtension: "txt")
    /// `application/octet-stream`, `bin`: bytes of no known type.
    public static let octetStream = MIMEType(name: "application/octet-stream", fileExtension: "bin")

    /// The type to announce for `data`: a binary signature in its first bytes wins (a photo
    /// named `notes.txt` is still a JPEG); otherwise the extension of `filename` (it tells
    /// `text/csv` from other text); otherwise what the text looks like (JSON, XML, plain text);
    /// otherwise `application/octet-stream`.
    public static func detect(_ data: some DataProtocol, filename: String? = nil) -> MIMEType {
        let sniffed = MIMEType(sniffing: data)
        if let sniffed, !sniffed.isTextual { return sniffed }
        if let filename, let named = MIMEType(filename: filename) { return named }
        return sniffed ?? .octetStream
    }

    /// The type of the file at `fileURL`, from its first bytes and its name, as
    /// `detect(_:filename:)` decides; from its name alone when it cannot be read.
    public static func detect(fileAt fileURL: URL) -> MIMEType {
        detect(head(ofFileAt: fileURL), filename: fileURL.lastPathComponent)
    }

    /// The first `sniffLength` bytes of a file; none when it cannot be read.
    package static func head(ofFileAt fileURL: URL) -> Data {
        guard let handle = try? FileHandle(forReadingFrom: fileURL) else { return Data() }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: sniffLength)) ?? Data()
    }

    /// How many leading bytes sniffing reads: enough for every signature and a fair sample of text.
    public static let sniffLength = 1_024

    /// Text types, which a file name may refine.
    var isTextual: Bool { self == .plainText || self == .json || self == .xml }
}
