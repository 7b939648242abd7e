import Foundation
import OpenAPIKit
import Validator

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The OpenAPI major.minor versions the importer reads.
package enum OpenAPIVersion: String, Sendable, Equatable {
    /// OpenAPI 3.0.x: `nullable`, boolean `exclusiveMinimum`, `example`.
    case v30 = "3.0"
    /// OpenAPI 3.1.x: JSON Schema 2020-12, `type` arrays with `"null"`, numeric exclusive bounds.
    case v31 = "3.1"
}

/// An OpenAPI description: read by OpenAPIKit, with the JSON it was read from.
package struct OpenAPIDescription: Sendable {
    /// The whole document as JSON: what the schemas are read from (see `OpenAPIKitReading`) and
    /// where the report's keys are spelled as the description spells them.
    package let root: JSONValue
    /// OpenAPIKit's reading of the document (a 3.0 description converted to the 3.1 model).
    package let document: OpenAPI.Document
    /// The version its `openapi` field declares.
    package let version: OpenAPIVersion
    /// The exact `openapi` field, e.g. `3.0.3`.
    package let declaredVersion: String
    /// `info.title`, or the file's name.
    package let title: String

    /// Reads a description from `url`: JSON when the first significant byte is `{`, YAML
    /// otherwise.
    ///
    /// - Parameters:
    ///   - url: The file: a regular one, or a pipe or device (`<(curl …)`), read through one
    ///     descriptor either way.
    ///   - maxBytes: The largest file read; a larger one is refused before any of it is parsed,
    ///     so memory stays bounded (a parsed document takes several times its size). A regular
    ///     file says its size; anything else is read no further than the limit.
    /// - Throws: `OpenAPIImportError` naming what is wrong with the file.
    package static func load(contentsOf url: URL, maxBytes: Int) throws(OpenAPIImportError) -> OpenAPIDescription {
        let path = url.path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .unreadable(path: path, reason: errno == ENOENT ? "no such file" : String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        if status.st_mode & S_IFMT == S_IFDIR { throw .unreadable(path: path, reason: "it is a folder") }
        if status.st_mode & S_IFMT == S_IFREG, Int(status.st_size) > maxBytes {
            throw .tooLarge(path: path, bytes: Int(status.st_size), limit: maxBytes)
        }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
            if count == 0 { break }
            data.append(contentsOf: chunk[0..<count])
            // A pipe or a device has no size to check first: it is read no further than the limit.
            guard data.count <= maxBytes else { throw .tooLarge(path: path, bytes: nil, limit: maxBytes) }
        }
        return try parse(data, path: path)
    }

    /// Reads a description from `data` (a file's bytes); `path` names it in errors.
    package static func parse(_ data: Data, path: String) throws(OpenAPIImportError) -> OpenAPIDescription {
        let root: JSONValue
        let firstByte = data.first { !Set<UInt8>([0x20, 0x09, 0x0A, 0x0D]).contains($0) }
        if firstByte == UInt8(ascii: "{") {
            do { root = try JSONValue(parsing: data, maxDepth: 256) } catch {
                throw .malformed(path: path, reason: "JSON: \(error)")
            }
        } else {
            guard let text = String(data: data, encoding: .utf8) else {
                throw .malformed(path: path, reason: "the file is not UTF-8 text")
            }
            do { root = try YAMLConversion.json(fromYAML: text) } catch let error as YAMLConversion.Failure {
                throw .malformed(path: path, reason: "YAML: \(error.reason)")
            } catch {
                throw .malformed(path: path, reason: "YAML: \(error)")
            }
        }
        guard case let .object(fields) = root else {
            throw .notOpenAPI(path: path, reason: "the document is not an object")
        }
        guard let declared = fields["openapi"] else {
            if fields["swagger"] != nil {
                throw .notOpenAPI(path: path, reason: "it is a Swagger 2.0 document; convert it to OpenAPI 3 first")
            }
            throw .notOpenAPI(path: path, reason: "it has no \"openapi\" field")
        }
        guard case let .string(versionText) = declared else {
            throw .notOpenAPI(path: path, reason: "its \"openapi\" field is not a string")
        }
        let version: OpenAPIVersion
        if versionText.hasPrefix("3.0") {
            version = .v30
        } else if versionText.hasPrefix("3.1") {
            version = .v31
        } else {
            throw .notOpenAPI(path: path, reason: "version \(versionText) is not 3.0 or 3.1")
        }
        guard case .object? = fields["paths"] else {
            throw .notOpenAPI(path: path, reason: "it has no \"paths\" object")
        }
        let document: OpenAPI.Document
        do {
            document = try OpenAPIKitReading.document(from: root, version: version, declared: versionText)
        } catch {
            throw .notOpenAPI(path: path, reason: error.reason)
        }
        var title = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        if !document.info.title.isEmpty { title = document.info.title }
        return OpenAPIDescription(root: root, document: document, version: version, declaredVersion: versionText, title: title)
    }
}

/// `read(2)`.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(descriptor, buffer, count)
    #else
    Darwin.read(descriptor, buffer, count)
    #endif
}
