import Foundation
import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Builds the request of an API method: endpoint joined to the base URL, the caller's properties
/// merged over the method's defaults, encoded as the method says, the token placed where the
/// service wants it.
public enum RequestConstructor {
    /// A built request: a plain one, or one whose body is a multipart form.
    public enum Built: Sendable {
        /// A request complete with its body.
        case plain(URLRequest)
        /// The request's URL and headers; the form becomes its body when the operation starts.
        case multipart(URLRequest, MultipartFormData)

        /// The request (without the multipart body).
        public var request: URLRequest {
            switch self {
            case let .plain(request), let .multipart(request, _): return request
            }
        }
    }

    /// The request for `method` with `properties`.
    ///
    /// - Parameters:
    ///   - method: The API method.
    ///   - properties: The caller's parameters, merged over `method.defaultParameters`; those
    ///     named by the path's placeholders fill them, those in `method.queryKeys` go in the query.
    ///   - baseURL: The API's base URL.
    ///   - token: The access token, placed as `method.tokenPlacement` says (nothing when `nil`).
    ///   - headers: This call's headers, over `method.headers`.
    /// - Throws: `APIError` of stage `.construction`.
    public static func request<Method: APIMethod>(
        for method: Method, properties: Parameters = [:], baseURL: URL?, token: String? = nil, headers: [String: String] = [:]
    ) throws(APIError) -> Built {
        try request(for: method, properties: properties, baseURL: baseURL, token: token, headers: headers, encoding: method.encoding)
    }

    /// The request for `method` with its parameters put as `encoding` says, whatever the
    /// method's own encoding (a file upload sends the parameters in the query).
    static func request<Method: APIMethod>(
        for method: Method, properties: Parameters, baseURL: URL?, token: String?, headers: [String: String],
        encoding: RequestEncoding
    ) throws(APIError) -> Built {
        func fail(_ reason: String) -> APIError { APIError(.construction(reason), method: method.rawValue) }
        guard let baseURL else { throw fail("the base URL of \(Method.api) is not set") }
        guard let scheme = baseURL.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw fail("base URL \(baseURL.absoluteString) is not http or https")
        }
        var parameters = merge(properties, over: method.defaultParameters)
        let path: String
        switch PathTemplate.fill(method.path, from: &parameters) {
        case let .success(filled): path = filled
        case let .failure(error): throw fail(error.description)
        }
        // The parameters that go in the query are encoded into the URL's text, which is parsed
        // once: the query encoding's all of them, another encoding's `queryKeys`.
        var query: Parameters = [:]
        if encoding == .query {
            swap(&query, &parameters)
        } else {
            for key in method.queryKeys { if let value = parameters.removeValue(forKey: key) { query[key] = value } }
        }
        let url: URL
        if let text = joined(baseURL, path, query: query.isEmpty ? "" : RequestFactory.formEncoded(query)) {
            guard let made = URL(string: text) else {
                throw fail("path \"\(path)\" does not make a URL with \(baseURL.absoluteString)")
            }
            url = made
        } else {
            url = baseURL
        }
        let allHeaders = method.headers.merging(headers) { _, call in call }
        // Checked before `URLRequest` sees them: it drops a value with CR or LF without a word.
        if let refusal = RequestCheck.refusal(ofFields: allHeaders) { throw fail(refusal) }
        var built: Built
        switch encoding {
        case .query, .form, .json:
            let parameterEncoding: ParameterEncoding = encoding == .query ? .query : encoding == .form ? .form : .json
            switch RequestFactory.make(method.httpMethod, url, parameters: parameters, encoding: parameterEncoding, headers: allHeaders) {
            case let .success(request): built = .plain(request)
            case let .failure(error): throw fail(error.description)
            }
        case .multipart:
            var request = URLRequest(url: url)
            request.httpMethod = method.httpMethod.rawValue
            for (name, value) in allHeaders { request.setValue(value, forHTTPHeaderField: name) }
            var form = MultipartFormData()
            for key in parameters.keys.sorted() {
                do { try appendPart(parameters[key]!, name: key, to: &form) } catch { throw fail(error.description) }
            }
            request.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
            built = .multipart(request, form)
        }
        if let token, let placement = method.tokenPlacement {
            switch built {
            case let .plain(request): built = .plain(placement.apply(token, to: request))
            case let .multipart(request, form): built = .multipart(placement.apply(token, to: request), form)
            }
        }
        return built
    }

    /// `properties` merged over `defaults`: the caller's value wins, except that when both are
    /// arrays and `concatenatingArrays` is set, the result is the defaults followed by the
    /// caller's elements.
    public static func merge(_ properties: Parameters, over defaults: Parameters, concatenatingArrays: Bool = true) -> Parameters {
        guard !defaults.isEmpty else { return properties }
        guard !properties.isEmpty else { return defaults }
        var merged = defaults
        for (key, value) in properties {
            if concatenatingArrays, let old = defaults[key].flatMap({ $0 as? [any Sendable] }), let new = value as? [any Sendable] {
                merged[key] = old + new
            } else {
                merged[key] = value
            }
        }
        return merged
    }

    /// The URL of `endpoint` under `base`, as every API method's request gets it (the
    /// reference's `baseURLappend:`): the endpoint's path follows the base's path with exactly
    /// one `/` between them, whatever slashes either side brings.
    ///
    /// ```swift
    /// RequestConstructor.join(URL(string: "https://api.example.com/method/")!, "/users.get?v=5")
    /// // https://api.example.com/method/users.get?v=5
    /// ```
    ///
    /// - An empty endpoint (or slashes only) gives `base` unchanged.
    /// - A query or fragment of `base` stays at the end (`…/method?key=1` + `users.get` is
    ///   `…/method/users.get?key=1`); the endpoint's query follows the base's, joined by `&`; the
    ///   endpoint's fragment replaces the base's.
    /// - The endpoint is taken as a path, never as a URL of its own: `https://other.example/`
    ///   as an endpoint stays under `base` (a token is never sent elsewhere by a join).
    ///
    /// - Returns: the joined URL; `nil` when the text is not a URL.
    public static func join(_ base: URL, _ endpoint: String) -> URL? {
        guard let text = joined(base, endpoint, query: "") else { return base }
        return URL(string: text)
    }

    /// The text of `join(base, endpoint)` with `extraQuery` (already percent-encoded, may be
    /// empty) after the joined query; nil when the endpoint adds nothing and there is no extra
    /// query (the base is the URL). One URL is made of it, not one per step: parsing a URL is
    /// most of what building an API call's request costs.
    private static func joined(_ base: URL, _ endpoint: String, query extraQuery: String) -> String? {
        let (endpointPath, endpointQuery, endpointFragment) = split(endpoint)
        let path = endpointPath.drop { $0 == "/" }
        guard !path.isEmpty || endpointQuery != nil || endpointFragment != nil || !extraQuery.isEmpty else { return nil }
        var (text, query, fragment) = split(base.absoluteString)
        if !path.isEmpty {
            while text.hasSuffix("/") { text.removeLast() }
            text += "/" + path
        }
        for addition in [endpointQuery, extraQuery.isEmpty ? nil : extraQuery] {
            if let addition { query = query.map { $0 + "&" + addition } ?? addition }
        }
        if let endpointFragment { fragment = endpointFragment }
        if let query { text += "?" + query }
        if let fragment { text += "#" + fragment }
        return text
    }

    /// A URL's text split into what comes before its query, its query and its fragment.
    /// Searched in UTF-8 code units: `#` and `?` are ASCII, and a search by `Character` would
    /// segment the whole text into grapheme clusters first.
    private static func split(_ text: String) -> (path: String, query: String?, fragment: String?) {
        var rest = Substring(text)
        var fragment: String?
        if let hash = rest.utf8.firstIndex(of: UInt8(ascii: "#")) {
            fragment = String(rest[rest.utf8.index(after: hash)...])
            rest = rest[..<hash]
        }
        var query: String?
        if let mark = rest.utf8.firstIndex(of: UInt8(ascii: "?")) {
            query = String(rest[rest.utf8.index(after: mark)...])
            rest = rest[..<mark]
        }
        return (String(rest), query, fragment)
    }

    private static func appendPart(_ value: any Sendable, name: String, to form: inout MultipartFormData) throws(PartError) {
        switch value {
        case let file as MultipartFile:
            if let fileURL = file.fileURL {
                // Copied into the body in chunks when the operation starts, never loaded whole.
                do { try form.append(fileAt: fileURL, name: name, filename: file.filename, contentType: file.contentType) } catch {
                    throw PartError(description: "part \"\(name)\": no readable file at \(fileURL.path)")
                }
            } else {
                form.append(file.data, name: name, filename: file.filename, contentType: file.contentType)
            }
        case let array as [any Sendable]:
            for element in array { try appendPart(element, name: name, to: &form) }
        case let flag as Bool:
            form.append(flag ? "true" : "false", name: name)
        default:
            form.append(String(describing: value), name: name)
        }
    }

    /// Why a part could not join a form.
    struct PartError: Error, CustomStringConvertible {
        let description: String
    }
}
