/// The name of a template: an API method name such as `users.get`, stored as `users.get.json`.
///
/// A name is a single file name in the template folder. It cannot be empty, contain a path
/// separator (`/` or `\`), `..`, a control character or a NUL, start with a dot (names starting
/// with a dot are Templater's own bookkeeping files), or be longer than 200 UTF-8 bytes.
/// Unicode letters are allowed.
public struct TemplateName: Sendable, Hashable, CustomStringConvertible {
    /// The method name, e.g. `users.get`.
    public let rawValue: String

    /// The file extension every template file has.
    public static let fileExtension = "json"

    /// Checks `rawValue` and makes a name of it.
    ///
    /// - Throws: `TemplaterError.invalidName` with the reason the name is refused.
    public init(_ rawValue: String) throws(TemplaterError) {
        if let reason = Self.problem(with: rawValue) {
            throw .invalidName(name: rawValue, reason: reason)
        }
        self.rawValue = rawValue
    }

    /// The name of a template file such as `users.get.json`, or `nil` when the file is not one.
    public init?(fileName: String) {
        let suffix = "." + Self.fileExtension
        guard fileName.hasSuffix(suffix) else { return nil }
        guard let name = try? TemplateName(String(fileName.dropLast(suffix.count))) else { return nil }
        self = name
    }

    /// The file name in the template folder, e.g. `users.get.json`.
    public var fileName: String { rawValue + "." + Self.fileExtension }

    /// The method name, as `rawValue`.
    public var description: String { rawValue }

    /// Why `name` cannot be a template name, or `nil` when it can.
    ///
    /// One pass over the UTF-8 bytes: this runs on every lookup, cached ones included.
    static func problem(with name: String) -> String? {
        let bytes = name.utf8
        if bytes.isEmpty { return "the name is empty" }
        if bytes.count > 200 { return "the name is longer than 200 bytes" }
        if bytes.first == UInt8(ascii: ".") { return "the name starts with a dot" }
        var previous: UInt8 = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "/"), UInt8(ascii: "\\"): return "the name contains a path separator"
            case UInt8(ascii: ".") where previous == UInt8(ascii: "."): return "the name contains '..'"
            case 0 ..< 0x20, 0x7F: return "the name contains a control character"
            default: previous = byte
            }
        }
        return nil
    }
}
