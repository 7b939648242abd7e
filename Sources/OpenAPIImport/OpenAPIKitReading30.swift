import OpenAPIKit
import OpenAPIKit30
import OpenAPIKitCompat
import Validator

/// An OpenAPI 3.0 description read by `OpenAPIKit30` and converted to OpenAPIKit's 3.1 model,
/// which the importer walks (see `OpenAPIKitReading`).
enum OpenAPIKitReading30 {
    /// OpenAPIKit30's reading of `root`, converted to 3.1.
    static func document(from root: JSONValue, declared: String) throws -> OpenAPIKit.OpenAPI.Document {
        let known = OpenAPIKit30.OpenAPI.Document.Version(rawValue: declared) != nil
        let document = try decoder.decode(OpenAPIKit30.OpenAPI.Document.self, from: known ? root : root.declaring("3.0.0"))
        return document.convert(to: .v3_1_0)
    }

    /// The decoder of OpenAPIKit30's types: without vendor extensions, schemas stood in for.
    static let decoder: JSONValueDecoder = {
        var decoder = JSONValueDecoder()
        decoder.userInfo = [OpenAPIKit30.VendorExtensionsConfiguration.enabledKey: false]
        let schema = ObjectIdentifier(OpenAPIKit30.JSONSchema.self)
        let standIn = OpenAPIKit30.JSONSchema.fragment
        decoder.standIn = { type in ObjectIdentifier(type) == schema ? standIn : nil }
        return decoder
    }()
}
