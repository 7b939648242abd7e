/// The name of a template: an API method name such as `users.get` or `issues/list-for-repo`,
/// stored as `users.get.json` or `issues/list-for-repo.json` inside the template folder.
///
/// A `/` separates folder segments: `issues/list-for-repo` is the file `list-for-repo.json` in
/// the subfolder `issues`. A name is refused when it is empty or longer than 200 UTF-8 bytes,
/// starts or ends with `/`, has an empty segment (`a//b`), a segment that is `.` or `..` or
/// starts with a dot (names starting with a dot are Templater's own bookkeeping files), contains
/// `..` anywhere, a backslash, a NUL or another control character. Unicode letters are allowed.
/// So a valid name always stays inside its folder.
public struct TemplateName: Sendable, Hashable, CustomStringConvertible {
    /// The method name, e.g. `users.get` or `issues/list-for-repo`.
    public let rawValue: String

    /// The file extension every template file has.
    public static let fileExtension = "json"

    /// The most UTF-8 bytes a name may have.
    static let maxByteCount = 200

    /// Checks `rawValue` and makes a name of it.
    ///
    /// - Throws: `TemplaterError.invalidName` with the reason the name is refused.
    public init(_ rawValue: String) throws(TemplaterError) {
        if let reason = Self.problem(with: rawValue) {
            throw .invalidName(name: rawValue, reason: reason)
        }
        self.rawValue = rawValue
    }

    /// The name of a template file given by its path relative to the template folder, such as
    /// `users.get.json` or `issues/list-for-repo.json`; `nil` when the path is not one.
    public init?(fileName: String) {
        let suffix = "." + Self.fileExtension
        guard fileName.hasSuffix(suffix) else { return nil }
        guard let name = try? TemplateName(String(fileName.dropLast(suffix.count))) else { return nil }
        self = name
    }

    /// The file's path relative to the template folder, e.g. `users.get.json` or
    /// `issues/list-for-repo.json`.
    public var fileName: String { rawValue + "." + Self.fileExtension }

    /// The method name, as `rawValue`.
    public var description: String { rawValue }

    /// The folders the file is in, outermost first (empty for a name without `/`).
    var folderSegments: [String] {
        var segments = rawValue.split(separator: "/").map(String.init)
        segments.removeLast()
        return segments
    }

    /// The file's own name inside its folder, e.g. `list-for-repo.json`.
    var leafFileName: String {
        let leaf = rawValue.lastIndex(of: "/").map { rawValue[rawValue.index(after: $0)...] } ?? rawValue[...]
        return leaf + "." + Self.fileExtension
    }

    /// Why `name` cannot be a template name, or `nil` when it can.
    ///
    /// One pass over the UTF-8 bytes: this runs on every lookup, cached ones included.
    static func problem(with name: String) -> String? {
        var name = name
        return name.withUTF8 { problem(withBytes: $0) }
    }

    private static func problem(withBytes bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let slash = UInt8(ascii: "/")
        let dot = UInt8(ascii: ".")
        if bytes.isEmpty { return "the name is empty" }
        if bytes.count > maxByteCount { return "the name is longer than \(maxByteCount) bytes" }
        if bytes[0] == slash { return "the name starts with '/' (an absolute path)" }
        if bytes[bytes.count - 1] == slash { return "the name ends with '/'" }
        var previous = slash  // the byte before the first one: a segment starts there
        for index in bytes.indices {
            let byte = bytes[index]
            switch byte {
            case slash where previous == slash:
                return "the name has an empty segment ('//')"
            case dot where previous == slash:
                let next = index + 1 < bytes.count ? bytes[index + 1] : slash
                if next == slash { return "the name has a '.' segment" }
                let afterNext = index + 2 < bytes.count ? bytes[index + 2] : slash
                if next == dot, afterNext == slash { return "the name has a '..' segment (it would leave its folder)" }
                return index == 0
                    ? "the name starts with a dot (reserved for Templater's own files)"
                    : "a segment of the name starts with a dot (reserved for Templater's own files)"
            case dot where previous == dot:
                return "the name contains '..'"
            case UInt8(ascii: "\\"):
                return "the name contains a backslash"
            case 0:
                return "the name contains a NUL byte"
            case 1..<0x20, 0x7F:
                return "the name contains a control character"
            default:
                break
            }
            previous = byte
        }
        return nil
    }
}
