import Validator

/// One operation of a description, as the import saw it: its template (or why there is none),
/// what the recipe needs to call it, and what the report says about it.
package struct ImportedOperation: Sendable {
    /// The template name: the operationId, or a name made from the method and path.
    package var name: String
    /// The operationId as the description gives it; nil when it has none.
    package var operationID: String?
    /// The HTTP method, lowercased (`get`).
    package var method: String
    /// The path as the description gives it (`/items/{id}`).
    package var path: String
    /// The operation's summary, for the recipe's doc comments.
    package var summary: String?
    /// Where the operation is in the description, as a JSON Pointer.
    package var pointer: String
    /// The success status whose body the template describes.
    package var status: Int?
    /// Every 2xx status the operation declares, lowest first.
    package var successStatuses: [Int] = []
    /// The template, with its `-Rules`; nil when none was made.
    package var template: JSONValue?
    /// Why no template was written; nil when one was.
    package var skipReason: String?
    /// What the import noticed.
    package var findings: [ImportFinding] = []
    /// The names of the path's `{placeholders}`.
    package var pathParameters: [String] = []
    /// The names of the query parameters.
    package var queryParameters: [String] = []
    /// How the request body travels: `json`, `form` or `multipart`; nil without a body.
    package var requestEncoding: String?
    /// Whether the operation belongs in the recipe's method enum: it has a usable, unique name
    /// (with or without a template).
    package var isCallable = false

    /// Whether a template was made.
    package var isWritten: Bool { skipReason == nil && template != nil }

    /// The operation's entry in the `--json` report.
    var json: JSONValue {
        var fields: [String: JSONValue] = [
            "name": .string(name), "method": .string(method.uppercased()), "path": .string(path), "pointer": .string(pointer),
            "written": .bool(isWritten), "findings": .array(findings.map(\.json)),
        ]
        if let operationID { fields["operationId"] = .string(operationID) }
        if let status { fields["status"] = .int(status) }
        if isWritten { fields["file"] = .string(name + ".json") }
        if let skipReason { fields["skipped"] = .string(skipReason) }
        return .object(fields)
    }
}
