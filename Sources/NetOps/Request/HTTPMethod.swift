/// The HTTP methods NetOps' constructors build.
public enum HTTPMethod: String, Sendable, CaseIterable {
    /// GET
    case get = "GET"
    /// HEAD
    case head = "HEAD"
    /// POST
    case post = "POST"
    /// PUT
    case put = "PUT"
    /// PATCH
    case patch = "PATCH"
    /// DELETE
    case delete = "DELETE"

    /// Where parameters go when the caller does not say: the query for GET, HEAD and DELETE,
    /// a JSON body otherwise.
    public var defaultEncoding: ParameterEncoding {
        switch self {
        case .get, .head, .delete: return .query
        case .post, .put, .patch: return .json
        }
    }
}

/// How request parameters are sent.
public enum ParameterEncoding: Sendable {
    /// In the URL's query string (`a=1&b=x`), keys sorted.
    case query
    /// As an `application/x-www-form-urlencoded` body.
    case form
    /// As an `application/json` body.
    case json
}

/// Request parameters: strings, numbers, booleans, and arrays or dictionaries of them.
public typealias Parameters = [String: any Sendable]
