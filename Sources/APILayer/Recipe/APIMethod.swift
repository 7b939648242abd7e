import Foundation
import NetOps
import Validator

/// One method of a service's API: a case of the service's method enum.
///
/// The raw value is the endpoint, joined to `APIManager.baseURL`, and the name of the method's
/// template. Every part that differs per method is a requirement, so a new case that forgets
/// one does not compile:
///
/// ```swift
/// enum DemoAPI: String, APIMethod {
///     case usersGet = "users.get"
///
///     var httpMethod: HTTPMethod { .get }
///     var encoding: RequestEncoding { .query }
///     var defaultParameters: Parameters {
///         switch self {
///         case .usersGet: return ["fields": ["name"]]
///         }
///     }
/// }
///
/// let users = try await APIManager.call(DemoAPI.usersGet, properties: ["ids": [1, 2]],
///                                       as: [User].self, at: "response")
/// ```
public protocol APIMethod: RawRepresentable, Sendable where RawValue == String {
    /// The HTTP method of the request.
    var httpMethod: HTTPMethod { get }
    /// How the parameters travel: query, form, JSON or multipart.
    var encoding: RequestEncoding { get }
    /// The parameters every call sends; a caller's properties are merged over them.
    var defaultParameters: Parameters { get }
    /// How responses are checked. Default: `.automatic(.all)` against the method's template.
    ///
    /// `.custom` never consults a template, so a method without one uses `.custom`.
    var validation: ValidationPolicy { get }
    /// Where the access token goes, or `nil` for a method sent without one.
    /// Default: the `Authorization` header.
    var tokenPlacement: TokenPlacement? { get }
    /// Headers every call sends. Default: none.
    var headers: [String: String] { get }
    /// Finds a service-level error in a body that arrived with a success status (e.g.
    /// `{"error": {...}}`) and returns its message; `nil` means the body is not an error.
    /// Default: no such errors.
    var bodyError: (@Sendable (JSONValue) -> String?)? { get }
}

extension APIMethod {
    /// Every automatic check against the method's template.
    public var validation: ValidationPolicy { .automatic(.all) }
    /// The `Authorization: Bearer` header.
    public var tokenPlacement: TokenPlacement? { .authorizationHeader }
    /// No extra headers.
    public var headers: [String: String] { [:] }
    /// No body-level errors.
    public var bodyError: (@Sendable (JSONValue) -> String?)? { nil }
}

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

/// A file part of a multipart request, given as a property value.
public struct MultipartFile: Sendable, Equatable {
    /// The bytes sent.
    public var data: Data
    /// The file name the server sees.
    public var filename: String
    /// The part's content type.
    public var contentType: String

    /// A file part of `data` named `filename`.
    public init(data: Data, filename: String, contentType: String = "application/octet-stream") {
        self.data = data
        self.filename = filename
        self.contentType = contentType
    }
}
