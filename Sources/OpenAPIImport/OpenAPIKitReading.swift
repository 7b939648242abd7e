import Foundation
import OpenAPIKit
import Validator

/// The description read by OpenAPIKit: OpenAPI 3.1 with `OpenAPIKit`, 3.0 with `OpenAPIKit30`
/// converted to the 3.1 model (`OpenAPIKitReading30`).
///
/// JSON Schemas are the exception: OpenAPIKit's schema model keeps only the keywords it models
/// (`patternProperties`, `prefixItems`, `if`, `unevaluatedProperties`, a second type… are
/// dropped) and refuses a whole document over one bound no `Int` holds (`maxLength: 1e20`,
/// YAML's `.nan`), while the import must report each such keyword and bound on the operation that
/// uses it. So every schema decodes to an empty stand-in, and `SchemaTranslator` reads the
/// schema's JSON at the same place.
enum OpenAPIKitReading {
    /// OpenAPIKit's reading of `root`, a document whose `openapi` field declared `declared`.
    ///
    /// - Throws: OpenAPIKit's error, made readable (`OpenAPI.Error`), as `reason`.
    static func document(from root: JSONValue, version: OpenAPIVersion, declared: String) throws(Failure) -> OpenAPI.Document {
        do {
            switch version {
            case .v31:
                let known = OpenAPI.Document.Version(rawValue: declared) != nil
                return try decoder.decode(OpenAPI.Document.self, from: known ? root : root.declaring("3.1.0"))
            case .v30:
                return try OpenAPIKitReading30.document(from: root, declared: declared)
            }
        } catch {
            // One line: OpenAPIKit says why each alternative failed on lines of their own.
            let lines = OpenAPI.Error(from: error).localizedDescription.split(whereSeparator: \.isNewline)
            throw Failure(reason: lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " "))
        }
    }

    /// Why OpenAPIKit could not read the document.
    struct Failure: Error {
        let reason: String
    }

    /// The decoder of OpenAPIKit's 3.1 types: without vendor extensions (the import reads none,
    /// and OpenAPIKit would decode every object a second time to find them), schemas stood in for.
    static let decoder: JSONValueDecoder = {
        var decoder = JSONValueDecoder()
        decoder.userInfo = [VendorExtensionsConfiguration.enabledKey: false]
        let schema = ObjectIdentifier(JSONSchema.self)
        let standIn = JSONSchema.fragment
        decoder.standIn = { type in ObjectIdentifier(type) == schema ? standIn : nil }
        return decoder
    }()
}

extension JSONValue {
    /// The document with its `openapi` field set to `version`: a declared version OpenAPIKit does
    /// not list (`3.1`, without a patch number) is read as the first of its minor version.
    func declaring(_ version: String) -> JSONValue {
        guard case var .object(fields) = self else { return self }
        fields["openapi"] = .string(version)
        return .object(fields)
    }
}
