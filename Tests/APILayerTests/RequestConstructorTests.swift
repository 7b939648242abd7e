import APILayer
import Foundation
import NetOps
import Testing
import Validator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An API method made up by a test: any endpoint, verb, encoding and defaults.
struct AdHocMethod: APIMethod {
    var rawValue: String
    var httpMethod: HTTPMethod = .get
    var encoding: RequestEncoding = .query
    var defaultParameters: Parameters = [:]
    var validation: ValidationPolicy = .automatic(.all)
    var tokenPlacement: TokenPlacement? = .authorizationHeader
    var bodyError: (@Sendable (JSONValue) -> String?)? = nil

    init(rawValue: String) { self.rawValue = rawValue }

    init(
        _ endpoint: String, _ httpMethod: HTTPMethod = .get, _ encoding: RequestEncoding = .query,
        defaults: Parameters = [:], validation: ValidationPolicy = .automatic(.all),
        token: TokenPlacement? = .authorizationHeader, bodyError: (@Sendable (JSONValue) -> String?)? = nil
    ) {
        rawValue = endpoint
        self.httpMethod = httpMethod
        self.encoding = encoding
        defaultParameters = defaults
        self.validation = validation
        tokenPlacement = token
        self.bodyError = bodyError
    }
}

/// A method enum as a service writes it.
enum DemoAPI: String, APIMethod {
    case usersGet = "users.get"
    case wallPost = "wall.post"

    var httpMethod: HTTPMethod {
        switch self {
        case .usersGet: return .get
        case .wallPost: return .post
        }
    }

    var encoding: RequestEncoding {
        switch self {
        case .usersGet: return .query
        case .wallPost: return .form
        }
    }

    var defaultParameters: Parameters {
        switch self {
        case .usersGet: return ["fields": ["name"], "v": "5"]
        case .wallPost: return [:]
        }
    }

    var tokenPlacement: TokenPlacement? { .queryParameter("access_token") }
}

private let base = URL(string: "http://api.example.test/method/")!

private func query(_ request: URLRequest) -> [String] {
    let items = URLComponents(url: request.url!, resolvingAgainstBaseURL: false)?.queryItems ?? []
    return items.map { "\($0.name)=\($0.value ?? "")" }.sorted()
}

@Suite("RequestConstructor")
struct RequestConstructorTests {
    @Test func callerValuesWinAndArraysConcatenate() {
        let merged = RequestConstructor.merge(["v": "6", "fields": ["photo"], "new": 1], over: ["v": "5", "fields": ["name"], "kept": true])
        #expect(merged["v"] as? String == "6")
        #expect(merged["fields"] as? [String] == ["name", "photo"])
        #expect(merged["new"] as? Int == 1)
        #expect(merged["kept"] as? Bool == true)
        let replaced = RequestConstructor.merge(["fields": ["photo"]], over: ["fields": ["name"]], concatenatingArrays: false)
        #expect(replaced["fields"] as? [String] == ["photo"])
        let scalarOverArray = RequestConstructor.merge(["fields": "photo"], over: ["fields": ["name"]])
        #expect(scalarOverArray["fields"] as? String == "photo")
    }

    @Test func queryMethodJoinsBaseMergesAndPlacesTokenAsParameter() throws {
        let built = try RequestConstructor.request(
            for: DemoAPI.usersGet, properties: ["fields": ["photo"], "ids": 7],
            baseURL: base, token: "t+k")
        let request = built.request
        #expect(request.httpMethod == "GET")
        #expect(request.url?.path == "/method/users.get")
        #expect(query(request) == ["access_token=t+k", "fields=name", "fields=photo", "ids=7", "v=5"])
        #expect(request.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test func tokenInAuthorizationHeader() throws {
        let method = AdHocMethod("items", .post, .json, defaults: ["a": 1])
        let request = try RequestConstructor.request(for: method, properties: ["b": "x"], baseURL: base, token: "abc").request
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer abc")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(String(decoding: request.httpBody ?? Data(), as: UTF8.self) == #"{"a":1,"b":"x"}"#)
        #expect(request.url?.absoluteString == "http://api.example.test/method/items")
    }

    @Test func noTokenNoPlacement() throws {
        let method = AdHocMethod("items", token: nil)
        let request = try RequestConstructor.request(for: method, baseURL: base, token: "abc").request
        #expect(request.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(query(request).isEmpty)
    }

    @Test func formBody() throws {
        let request = try RequestConstructor.request(
            for: DemoAPI.wallPost, properties: ["message": "hi there", "n": 2],
            baseURL: base
        ).request
        #expect(request.httpMethod == "POST")
        #expect(String(decoding: request.httpBody ?? Data(), as: UTF8.self) == "message=hi%20there&n=2")
        #expect(request.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true)
    }

    @Test func multipartParts() throws {
        let method = AdHocMethod("photos.upload", .post, .multipart, defaults: ["album": "1"])
        let built = try RequestConstructor.request(
            for: method, properties: ["photo": MultipartFile(data: Data("abc".utf8), filename: "a.jpg", contentType: "image/jpeg")],
            baseURL: base, token: "tok")
        guard case let .multipart(request, form) = built else {
            Issue.record("not multipart: \(built)")
            return
        }
        #expect(form.parts.map(\.name) == ["album", "photo"])
        #expect(form.parts.last?.filename == "a.jpg")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == form.contentType)
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer tok")
    }

    @Test func constructionFailuresNameTheStage() {
        for baseURL in [nil, URL(string: "ftp://example.test/")] {
            do {
                _ = try RequestConstructor.request(for: DemoAPI.usersGet, baseURL: baseURL)
                Issue.record("built with \(String(describing: baseURL))")
            } catch {
                #expect(error.stageName == "construction")
                #expect(error.operation == nil)
                #expect(error.description.hasPrefix("users.get: construction failed"))
            }
        }
    }
}
