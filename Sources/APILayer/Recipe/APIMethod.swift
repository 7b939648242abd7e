import Foundation
import NetOps
import Validator

/// One method of a service's API: a case of the service's method enum.
///
/// The raw value names the method; by default it is also the method's path (joined to its
/// API's base URL) and the name of its template. Every part that differs per method is a
/// requirement, so a new case that forgets one does not compile. A REST method gives its path
/// with `{name}` placeholders, filled from the call's properties:
///
/// ```swift
/// enum TrackerAPI: String, APIMethod {
///     case listIssues = "issues/list-for-repo"
///     case createIssue = "issues/create"
///
///     static var api: APIScope { .tracker }          // default: APIManager.defaultAPI
///     var path: String { "repos/{owner}/{repo}/issues" }
///     var httpMethod: HTTPMethod { self == .listIssues ? .get : .post }
///     var encoding: RequestEncoding { self == .listIssues ? .query : .json }
///     var defaultParameters: Parameters { [:] }
///     var acceptedStatuses: Set<Int> { self == .createIssue ? [201] : [200] }
///     var errorModel: (any APIErrorModel.Type)? { TrackerError.self }
/// }
///
/// let issues = try await APIManager.call(TrackerAPI.listIssues,
///                                        properties: ["owner": "octo-org", "repo": "hello-world"],
///                                        as: [Issue].self)
/// ```
public protocol APIMethod: RawRepresentable, Sendable where RawValue == String {
    /// The API the method belongs to: its base URL, token, templates, session. Default:
    /// `APIManager.defaultAPI`.
    static var api: APIScope { get }
    /// The method's path, joined to its API's base URL; `{name}` placeholders are filled from
    /// the call's properties, each value percent-encoded as one path segment, and those
    /// properties are not sent again. Default: the raw value.
    var path: String { get }
    /// The name of the method's template; it may contain `/` (`issues/list-for-repo` is the
    /// file `issues/list-for-repo.json`). Default: the raw value.
    var templateName: String { get }
    /// The HTTP method of the request.
    var httpMethod: HTTPMethod { get }
    /// How the parameters travel: query, form, JSON or multipart.
    var encoding: RequestEncoding { get }
    /// The parameters every call sends; a caller's properties are merged over them.
    var defaultParameters: Parameters { get }
    /// Parameters that go in the query string whatever the encoding of the others (a JSON
    /// body with `?dry_run=true`). Default: none.
    var queryKeys: Set<String> { get }
    /// The statuses that count as success. Default: 200–299.
    var acceptedStatuses: Set<Int> { get }
    /// How responses are checked. Default: `.automatic(.all)` against the method's template.
    ///
    /// `.custom` never consults a template, so a method without one uses `.custom`.
    var validation: ValidationPolicy { get }
    /// Whether calls need the method's template to exist. Default: `.required` (a missing
    /// template fails every call: it is a deployment error).
    var templateRequirement: TemplateRequirement { get }
    /// Where the access token goes, or `nil` for a method sent without one.
    /// Default: the `Authorization` header.
    var tokenPlacement: TokenPlacement? { get }
    /// Headers every call sends. Default: none.
    var headers: [String: String] { get }
    /// Finds a service-level error in a body that arrived with a success status (e.g.
    /// `{"error": {...}}`) and returns its message; `nil` means the body is not an error.
    /// Default: no such errors.
    var bodyError: (@Sendable (JSONValue) -> String?)? { get }
    /// The model of the API's error bodies (GitHub's `{"message", "documentation_url"}`): a
    /// body that came with an unaccepted status is decoded into it and given in
    /// `APIError.serverError`. Default: none (the body's first bytes are the message).
    var errorModel: (any APIErrorModel.Type)? { get }
}

extension APIMethod {
    /// `APIManager.defaultAPI`.
    public static var api: APIScope { APIManager.defaultAPI }
    /// The raw value.
    public var path: String { rawValue }
    /// The raw value.
    public var templateName: String { rawValue }
    /// None.
    public var queryKeys: Set<String> { [] }
    /// 200–299.
    public var acceptedStatuses: Set<Int> { BaseOperation.successStatusCodes }
    /// Every automatic check against the method's template.
    public var validation: ValidationPolicy { .automatic(.all) }
    /// `.required`.
    public var templateRequirement: TemplateRequirement { .required }
    /// The `Authorization: Bearer` header.
    public var tokenPlacement: TokenPlacement? { .authorizationHeader }
    /// No extra headers.
    public var headers: [String: String] { [:] }
    /// No body-level errors.
    public var bodyError: (@Sendable (JSONValue) -> String?)? { nil }
    /// No error model.
    public var errorModel: (any APIErrorModel.Type)? { nil }
}

/// The model of an API's error bodies, e.g. `{"message": "Not Found", "documentation_url": …}`.
///
/// Its `description` becomes the message of the `server` stage of `APIError`.
public protocol APIErrorModel: Decodable, Sendable, CustomStringConvertible {}

/// How a method's parameters are put into its request.
public enum RequestEncoding: Sendable, Equatable {
    /// In the URL's query string.
    case query
    /// As an `application/x-www-form-urlencoded` body.
    case form
    /// As an `application/json` body.
    case json
    /// As a `multipart/form-data` body: `MultipartFile` values become file parts, every other
    /// value a text field.
    case multipart
}

/// A file part of a multipart request, given as a property value: bytes in memory, or a file
/// on disk streamed into the request (never loaded whole).
public struct MultipartFile: Sendable, Equatable {
    /// The bytes sent (empty for a part read from `fileURL`).
    public var data: Data
    /// The file whose bytes are sent instead of `data`, copied into the request body in chunks
    /// when the call starts; nil for a part from memory.
    public var fileURL: URL?
    /// The file name the server sees.
    public var filename: String
    /// The part's content type.
    public var contentType: String

    /// A file part of `data` named `filename`, announced as `contentType`; without one, as the
    /// type `MIMEType.detect(_:filename:)` finds from the data's first bytes and the name.
    public init(data: Data, filename: String, contentType: String? = nil) {
        self.data = data
        self.filename = filename
        self.contentType = contentType ?? MIMEType.detect(data, filename: filename).name
    }

    /// A file part read from `fileURL` when the call starts, named `filename` (default: the
    /// file's name), announced as `contentType`; without one, as the type of the file's first
    /// bytes and name (`MIMEType.detect(fileAt:)`). A file that cannot be read fails the call
    /// at stage `construction`, naming its path.
    public init(fileAt fileURL: URL, filename: String? = nil, contentType: String? = nil) {
        data = Data()
        self.fileURL = fileURL
        self.filename = filename ?? fileURL.lastPathComponent
        self.contentType = contentType ?? MIMEType.detect(fileAt: fileURL).name
    }
}
