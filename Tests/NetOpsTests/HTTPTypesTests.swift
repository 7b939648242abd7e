import DemoServer
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// swift-http-types at the edge, against DemoServer on both engines (and the NIO engine over
/// HTTP/2): operations made from an `HTTPRequest`, their response read as an `HTTPResponse`, and
/// an `HTTPRequest` that makes no URL failing at start.
@Suite(.timeLimit(.minutes(2)))
struct HTTPTypesTests {
    /// What DemoServer's `/echo` saw.
    typealias Echo = ConformanceTests.Echo

    static func echo(_ operation: BaseOperation) throws -> Echo {
        try JSONDecoder().decode(Echo.self, from: operation.receivedData)
    }

    static func field(_ name: String) throws -> HTTPField.Name {
        try #require(HTTPField.Name(name))
    }

    // MARK: Requests

    @Test(arguments: ConformanceTarget.runnable)
    func aGETMadeFromAnHTTPRequest(_ target: ConformanceTarget) async throws {
        let request = HTTPRequest(method: .get, url: try await target.url("json"))
        let operation = try await DTO(httpRequest: request).on(target).run()
        #expect(operation.state == .successFinished)
        let response = try #require(operation.httpResponse)
        #expect(response.status == .ok)
        // Once, in a parallel run, over HTTP/2, the field was missing while the body was right:
        // the fields and the HTTPURLResponse's are printed if it happens again.
        #expect(
            response.headerFields[.contentType] == "application/json; charset=utf-8",
            "fields: \(response.headerFields); HTTPURLResponse: \(String(describing: operation.response?.allHeaderFields))")
        let object = try #require(operation.json as? [String: Any])
        #expect(object["name"] as? String == "APILayer")
    }

    @Test(arguments: ConformanceTarget.runnable)
    func aPOSTSendsItsBodyAndFields(_ target: ConformanceTarget) async throws {
        var request = HTTPRequest(method: .post, url: try await target.url("echo?source=http-types"))
        request.headerFields[.contentType] = "application/json"
        request.headerFields[try Self.field("X-Trace")] = "trace-42"
        request.headerFields.append(HTTPField(name: try Self.field("X-Test"), value: "one"))
        request.headerFields.append(HTTPField(name: try Self.field("X-Test"), value: "two"))
        let body = #"{"name":"pen","count":3}"#
        let operation = try await DTO(httpRequest: request, body: Data(body.utf8)).on(target).run()
        let echo = try Self.echo(operation)
        #expect(echo.method == "POST")
        #expect(echo.path == "/echo")
        #expect(echo.query == ["source": "http-types"])
        #expect(echo.body == body)
        #expect(echo.bodyLength == body.utf8.count)
        #expect(echo.headers["content-type"] == "application/json")
        #expect(echo.headers["x-trace"] == "trace-42")
        // A repeated field goes as one, its values joined.
        let repeated = try #require(echo.headers["x-test"])
        #expect(repeated.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } == ["one", "two"])
    }

    /// HTTPTypesFoundation hands Foundation a value past ASCII as ISO Latin-1 text; on Linux the
    /// engines write a header's text as UTF-8, so NetOps sets such a value again from its UTF-8
    /// text: the server reads what the request held, not `cafÃ©`.
    @Test(arguments: TestEngine.allCases)
    func aFieldValuePastASCIIArrivesAsTheRequestHeldIt(_ engine: TestEngine) async throws {
        var request = HTTPRequest(method: .get, url: try await TestServer.url("echo"))
        request.headerFields[try Self.field("X-Name")] = "café ☕"
        let operation = try await DTO(httpRequest: request).on(engine).run()
        #expect(try Self.echo(operation).headers["x-name"] == "café ☕")
    }

    // MARK: Responses

    /// On the NIO engine the fields are the ones that arrived: in their order, a repeated field
    /// as often as the server sent it. On the URLSession engine they are its
    /// `HTTPURLResponse`'s, repeated values joined.
    @Test(arguments: TestEngine.allCases)
    func aRepeatedResponseFieldIsKept(_ engine: TestEngine) async throws {
        var components = URLComponents(url: try await TestServer.url("cookies/set"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "cookie", value: "a=1"), URLQueryItem(name: "cookie", value: "b=2")]
        let operation = try await DTO(httpRequest: HTTPRequest(method: .get, url: try #require(components.url))).on(engine).run()
        let response = try #require(operation.httpResponse)
        switch engine {
        case .nio:
            #expect(response.headerFields[values: .setCookie] == ["a=1", "b=2"])
        case .urlSession:
            #expect(response.headerFields[values: .setCookie].joined(separator: ", ") == "a=1, b=2")
        }
    }

    @Test func theNIOEngineKeepsTheFieldsInTheirOrder() async throws {
        let operation = try await DTO(httpRequest: HTTPRequest(method: .get, url: try await TestServer.url("headers/many?count=20")))
            .on(TestEngine.nio).run()
        let response = try #require(operation.httpResponse)
        let demo = response.headerFields.map(\.name.canonicalName).filter { $0.hasPrefix("x-demo-") }
        #expect(demo == (0..<20).map { "x-demo-\($0)" })
        #expect(response.headerFields[try Self.field("x-demo-7")] == ConformanceFixtures.headerValue(7))
    }

    /// `httpResponse` says what `response` says: the status, and each field's (joined) value.
    @Test(arguments: ConformanceTarget.runnable, ["headers/many?count=5", "status/404", "cookies/set?cookie=a%3D1&cookie=b%3D2"])
    func theHTTPResponseMatchesTheHTTPURLResponse(_ target: ConformanceTarget, path: String) async throws {
        let operation = DTO(httpRequest: HTTPRequest(method: .get, url: try await target.url(path))).on(target)
        _ = try? await operation.run()
        let urlResponse = try #require(operation.response)
        let response = try #require(operation.httpResponse)
        #expect(response.status.code == urlResponse.statusCode)
        #expect(response.status.code == operation.statusCode)
        var names = Set<String>()
        for (name, value) in urlResponse.allHeaderFields {
            let name = try #require(name as? String)
            names.insert(name.lowercased())
            #expect(response.headerFields[try Self.field(name)] == value as? String, "\(name)")
        }
        #expect(Set(response.headerFields.map(\.name.canonicalName)) == names)
    }

    /// A field value past ASCII reads as the server sent it (the `Location` of DemoServer's
    /// `/redirect`, not followed), on either engine.
    @Test(arguments: TestEngine.allCases)
    func aResponseFieldPastASCIIReadsAsSent(_ engine: TestEngine) async throws {
        var components = URLComponents(url: try await TestServer.url("redirect"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "to", value: "/café")]
        let operation = DTO(httpRequest: HTTPRequest(method: .get, url: try #require(components.url))).on(engine)
        operation.followsRedirects = false
        _ = try? await operation.run()
        let response = try #require(operation.httpResponse)
        #expect(response.status == .found)
        #expect(response.headerFields[.location] == "/café")
    }

    // MARK: Other kinds

    @Test(arguments: TestEngine.allCases)
    func aStreamingOperationIsMadeFromAnHTTPRequest(_ engine: TestEngine) async throws {
        let size = 256 << 10
        let operation = SO(httpRequest: HTTPRequest(method: .get, url: try await TestServer.url("bytes/\(size)"))).on(engine)
        try await operation.response()
        var body = Data()
        for try await chunk in operation.body { body.append(chunk) }
        try await operation.run()
        #expect(operation.httpResponse?.status == .ok)
        #expect(sha256(body) == payloadSHA256(size: size))
    }

    @Test(arguments: TestEngine.allCases)
    func anUploadIsMadeFromAnHTTPRequest(_ engine: TestEngine) async throws {
        // PNG's signature: the upload announces the type its first bytes show.
        let data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 7, count: 1000)
        let request = HTTPRequest(method: .put, url: try await TestServer.url("echo"))
        let operation = try await UO(httpRequest: request, data: data).on(engine).run()
        let echo = try Self.echo(operation)
        #expect(echo.method == "PUT")
        #expect(echo.bodyLength == data.count)
        #expect(echo.headers["content-type"] == "image/png")
        #expect(operation.progress.bytesSent == Int64(data.count))
    }

    @Test(arguments: TestEngine.allCases)
    func aDownloadIsMadeFromAnHTTPRequest(_ engine: TestEngine) async throws {
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("http-types-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        let size = 100_000
        let request = HTTPRequest(method: .get, url: try await TestServer.url("bytes/\(size)"))
        let operation = try await DO(httpRequest: request, destination: destination).on(engine).run()
        #expect(operation.httpResponse?.status == .ok)
        #expect(sha256(try Data(contentsOf: destination)) == payloadSHA256(size: size))
    }

    // MARK: Requests that make no URL

    struct Unusable: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let request: HTTPRequest
        /// What the `invalidURL` error says.
        let text: String
    }

    static let unusable = [
        Unusable(
            testDescription: "no scheme, no authority",
            request: HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/json"),
            text: "/json (no scheme and no authority)"),
        Unusable(
            testDescription: "no authority",
            request: HTTPRequest(method: .get, scheme: "http", authority: nil, path: "/json"),
            text: "http:///json (no authority)"),
        Unusable(
            testDescription: "CONNECT",
            request: HTTPRequest(method: .connect, scheme: nil, authority: "127.0.0.1:443", path: nil),
            text: "127.0.0.1:443 (no scheme and no path)"),
    ]

    @Test(arguments: TestEngine.allCases, unusable)
    func aRequestThatMakesNoURLFailsAtStart(_ engine: TestEngine, _ unusable: Unusable) async throws {
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("http-types-\(UUID().uuidString)")
        let operations: [BaseOperation] = [
            DTO(httpRequest: unusable.request, body: Data("x".utf8)),
            SO(httpRequest: unusable.request),
            UO(httpRequest: unusable.request, data: Data("x".utf8)),
            DO(httpRequest: unusable.request, destination: destination),
        ]
        for operation in operations {
            operation.on(engine)
            await #expect(throws: NetOpsError.self) { try await operation.run() }
            #expect(operation.state == .failedFinished)
            #expect(operation.error?.kind == .invalidURL(unusable.text))
            #expect(operation.error?.description == "invalid URL '\(unusable.text)'")
            #expect(operation.httpResponse == nil)
            #expect(operation.progress.bytesSent == 0)
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }
}
