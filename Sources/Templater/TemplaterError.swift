import Foundation

/// What went wrong in Templater, with the template name, file or archive entry it concerns.
///
/// Every case's `description` is one line a log reader understands without the code.
public enum TemplaterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A template name cannot name a file inside the template folder (empty, `..`, `//`, a backslash …).
    case invalidName(name: String, reason: String)
    /// A template file exists but could not be read.
    case unreadable(name: String, path: String, reason: String)
    /// A template file is not valid JSON.
    case invalidJSON(name: String, path: String, reason: String)
    /// A template parses but its own rules (`name-Rules` keys) are invalid.
    case invalidRules(name: String, path: String, reason: String)
    /// A template could not be written to disk.
    case writeFailed(name: String, path: String, reason: String)
    /// A template or the template folder could not be removed.
    case removeFailed(path: String, reason: String)
    /// The template folder could not be moved; the source folder is left as it was.
    case moveFailed(from: String, to: String, reason: String)
    /// An archive could not be opened or read as a ZIP file.
    case archiveUnreadable(path: String, reason: String)
    /// An archive was refused because of one entry (or of the whole); nothing was installed.
    case archiveRefused(path: String, entry: String, reason: String)
    /// Unpacking failed for a reason outside the archive (disk full, permissions); nothing was installed.
    case unpackFailed(path: String, reason: String)
    /// Packing a folder into an archive failed; no archive was written.
    case packFailed(path: String, reason: String)

    /// One line naming the template, file or entry and the reason.
    public var description: String {
        switch self {
        case let .invalidName(name, reason):
            return "invalid template name '\(name)': \(reason)"
        case let .unreadable(name, path, reason):
            return "template '\(name)' at \(path) cannot be read: \(reason)"
        case let .invalidJSON(name, path, reason):
            return "template '\(name)' at \(path) is not valid JSON: \(reason)"
        case let .invalidRules(name, path, reason):
            return "template '\(name)' at \(path) has invalid rules: \(reason)"
        case let .writeFailed(name, path, reason):
            return "template '\(name)' cannot be written to \(path): \(reason)"
        case let .removeFailed(path, reason):
            return "cannot remove \(path): \(reason)"
        case let .moveFailed(from, to, reason):
            return "cannot move the template folder from \(from) to \(to): \(reason)"
        case let .archiveUnreadable(path, reason):
            return "archive \(path) cannot be read: \(reason)"
        case let .archiveRefused(path, entry, reason):
            return entry.isEmpty
                ? "archive \(path) refused: \(reason)"
                : "archive \(path) refused: entry '\(entry)': \(reason)"
        case let .unpackFailed(path, reason):
            return "cannot unpack archive \(path): \(reason)"
        case let .packFailed(path, reason):
            return "cannot pack \(path): \(reason)"
        }
    }
}

extension Error {
    /// A short reason for a Foundation or POSIX error, for the `reason` of a `TemplaterError`.
    var templaterReason: String {
        if let error = self as? TemplaterError { return error.description }
        let nsError = self as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain,
            let message = strerror(Int32(underlying.code))
        {
            return String(cString: message)
        }
        return String(describing: self)
    }
}
