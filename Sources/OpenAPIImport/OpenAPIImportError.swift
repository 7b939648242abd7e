import Foundation

/// Why a description could not be imported at all (`apilayer templates import` exits 2).
///
/// Problems of single operations are not errors: they are listed in the report and the
/// operation is skipped.
package enum OpenAPIImportError: Error, Equatable, CustomStringConvertible {
    /// The file could not be read.
    case unreadable(path: String, reason: String)
    /// The file is larger than the importer reads (`bytes`: its size, when it has one).
    case tooLarge(path: String, bytes: Int?, limit: Int)
    /// The file is neither JSON nor YAML.
    case malformed(path: String, reason: String)
    /// The document parsed but is not an OpenAPI 3.0 or 3.1 description.
    case notOpenAPI(path: String, reason: String)

    package var description: String {
        switch self {
        case let .unreadable(path, reason):
            return "cannot read \(path): \(reason)"
        case let .tooLarge(path, bytes?, limit):
            return "\(path) has \(bytes) bytes, more than the \(limit) this import reads (--max-bytes raises the limit)"
        case let .tooLarge(path, nil, limit):
            return "\(path) holds more than the \(limit) bytes this import reads (--max-bytes raises the limit)"
        case let .malformed(path, reason):
            return "\(path) is neither JSON nor YAML: \(reason)"
        case let .notOpenAPI(path, reason):
            return "\(path) is not an OpenAPI 3.0 or 3.1 description: \(reason)"
        }
    }
}
