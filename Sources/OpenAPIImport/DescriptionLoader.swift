import Foundation
import Validator
import Yams

/// The OpenAPI major.minor versions the importer reads.
package enum OpenAPIVersion: String, Sendable, Equatable {
    /// OpenAPI 3.0.x: `nullable`, boolean `exclusiveMinimum`, `example`.
    case v30 = "3.0"
    /// OpenAPI 3.1.x: JSON Schema 2020-12, `type` arrays with `"null"`, numeric exclusive bounds.
    case v31 = "3.1"
}

/// An OpenAPI description read into the package's JSON value.
package struct OpenAPIDescription: Sendable {
    /// The whole document.
    package let root: JSONValue
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
    ///   - url: The file.
    ///   - maxBytes: The largest file read; a larger one is refused before any of it is parsed,
    ///     so memory stays bounded (a parsed document takes several times its size).
    /// - Throws: `OpenAPIImportError` naming what is wrong with the file.
    package static func load(contentsOf url: URL, maxBytes: Int) throws(OpenAPIImportError) -> OpenAPIDescription {
        let path = url.path
        let size: Int
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            guard (attributes[.type] as? FileAttributeType) != .typeDirectory else {
                throw OpenAPIImportError.unreadable(path: path, reason: "it is a folder")
            }
            size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        } catch let error as OpenAPIImportError {
            throw error
        } catch {
            throw .unreadable(path: path, reason: "no such file")
        }
        guard size <= maxBytes else { throw .tooLarge(path: path, bytes: size, limit: maxBytes) }
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw .unreadable(path: path, reason: error.localizedDescription) }
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
        var title = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        if case let .object(info)? = fields["info"], case let .string(text)? = info["title"], !text.isEmpty { title = text }
        return OpenAPIDescription(root: root, version: version, declaredVersion: versionText, title: title)
    }
}

/// YAML (1.1 scalars, as libyaml resolves them) read into `JSONValue`.
enum YAMLConversion {
    /// Why a YAML document cannot be a JSON value.
    struct Failure: Error {
        let reason: String
    }

    /// The most JSON values a YAML document of `byteCount` bytes may expand to. Without aliases
    /// a document has fewer values than bytes; anchors and aliases can describe an exponentially
    /// large tree in a few lines ("billion laughs"), so past this, reading stops.
    static func maxValues(byteCount: Int) -> Int { max(100_000, byteCount) }

    /// The first document of `text` as a JSON value.
    static func json(fromYAML text: String) throws -> JSONValue {
        guard let node = try Yams.compose(yaml: text) else { throw Failure(reason: "the document is empty") }
        let limit = maxValues(byteCount: text.utf8.count)
        var budget = limit
        do { return try convert(node, depth: 0, budget: &budget) } catch is Failure where budget < 0 {
            throw Failure(reason: "the document expands to more than \(limit) values (aliases?)")
        }
    }

    private static func convert(_ node: Node, depth: Int, budget: inout Int) throws -> JSONValue {
        budget -= 1
        guard budget >= 0 else { throw Failure(reason: "too many values") }
        guard depth < 256 else { throw Failure(reason: "the document nests deeper than 256 levels") }
        switch node {
        case let .scalar(scalar):
            return scalarValue(node, text: scalar.string)
        case let .mapping(mapping):
            var object: [String: JSONValue] = [:]
            object.reserveCapacity(mapping.count)
            for (key, value) in mapping {
                guard case let .scalar(keyScalar) = key else { throw Failure(reason: "a mapping key is not a scalar") }
                object[keyScalar.string] = try convert(value, depth: depth + 1, budget: &budget)
            }
            return .object(object)
        case let .sequence(sequence):
            var array: [JSONValue] = []
            array.reserveCapacity(sequence.count)
            for element in sequence { array.append(try convert(element, depth: depth + 1, budget: &budget)) }
            return .array(array)
        case .alias:
            throw Failure(reason: "an alias that was not resolved")
        }
    }

    /// A scalar by its resolved tag; timestamps and everything else stay strings.
    private static func scalarValue(_ node: Node, text: String) -> JSONValue {
        switch node.tag.rawValue {
        case Tag.Name.null.rawValue: return .null
        case Tag.Name.bool.rawValue: return node.bool.map(JSONValue.bool) ?? .string(text)
        case Tag.Name.int.rawValue:
            if let value = node.int { return .int(value) }
            return node.float.map(JSONValue.double) ?? .string(text)
        case Tag.Name.float.rawValue: return node.float.map(JSONValue.double) ?? .string(text)
        default: return .string(text)
        }
    }
}
