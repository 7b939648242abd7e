import APILayer
import Foundation
import NetOps
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Nothing a caller, an interceptor or a token endpoint puts into a request adds a header line
/// or a second request on the wire, on either engine: the bytes a raw server receives say so.
@Suite("Security: header injection")
struct HeaderInjectionTests {
    static let smuggled = "X-Smuggled: yes"

    /// Runs `operation` against a recording server of its own and returns the error and what the
    /// server received.
    private static func send(
        _ make: (RecordingHTTPServer) -> BaseOperation, on engine: TestEngine
    ) async throws -> (NetOpsError?, [RecordingHTTPServer.Request]) {
        let server = try await RecordingHTTPServer.start()
        let operation = make(server).on(engine)
        let error: NetOpsError?
        do {
            try await operation.run()
            error = nil
        } catch let failure as NetOpsError {
            error = failure
        }
        // A request smuggled inside another would arrive with it: give it the time to.
        try await Task.sleep(for: .milliseconds(100))
        let requests = server.requests
        await server.stop()
        return (error, requests)
    }

    private static func expectRefused(_ error: NetOpsError?, naming header: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case let .invalidRequest(reason)? = error?.kind else {
            Issue.record("expected invalidRequest, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(reason.contains(header), "\(reason)", sourceLocation: sourceLocation)
        #expect(!reason.contains("X-Smuggled"), "the reason shows the value: \(reason)", sourceLocation: sourceLocation)
    }

    @Test(arguments: TestEngine.allCases)
    func aValueWithCRLFInTheOperationsHeadersIsRefusedNotDropped(_ engine: TestEngine) async throws {
        let (error, requests) = try await Self.send({ DTO.get($0.url(.ok), headers: ["X-Note": "a\r\n\(Self.smuggled)"]) }, on: engine)
        Self.expectRefused(error, naming: "X-Note")
        #expect(requests.isEmpty)
    }

    @Test(arguments: TestEngine.allCases)
    func aNameWithCRLFIsRefused(_ engine: TestEngine) async throws {
        let (error, requests) = try await Self.send({ DTO.get($0.url(.ok), headers: ["X-Note\r\n\(Self.smuggled)": "1"]) }, on: engine)
        #expect(error?.kind.name == "invalidRequest")
        #expect(requests.isEmpty)
    }

    @Test(arguments: TestEngine.allCases)
    func aValueWithCRLFInACallerBuiltRequestIsRefused(_ engine: TestEngine) async throws {
        let (error, requests) = try await Self.send(
            { server in
                var request = URLRequest(url: server.url(.ok))
                request.allHTTPHeaderFields = ["X-Note": "a\r\n\(Self.smuggled)"]
                return DTO(request: request)
            }, on: engine)
        Self.expectRefused(error, naming: "X-Note")
        #expect(requests.isEmpty)
    }

    @Test(arguments: TestEngine.allCases, ["\u{0}", "\r", "\n", "\u{1B}", "\u{7F}"])
    func everyControlCharacterButTabIsRefused(_ engine: TestEngine, _ control: String) async throws {
        let (error, requests) = try await Self.send(
            { server in
                var request = URLRequest(url: server.url(.ok))
                request.allHTTPHeaderFields = ["X-Note": "a\(control)b"]
                return DTO(request: request)
            }, on: engine)
        Self.expectRefused(error, naming: "X-Note")
        #expect(requests.isEmpty)
    }

    @Test(arguments: TestEngine.allCases)
    func aTabAndNonASCIITextPass(_ engine: TestEngine) async throws {
        let (error, requests) = try await Self.send({ DTO.get($0.url(.ok), headers: ["X-Note": "a\tb"]) }, on: engine)
        #expect(error == nil)
        #expect(requests.count == 1)
        #expect(requests.first?.values(of: "X-Note") == ["a\tb"])
    }

    @Test(arguments: TestEngine.allCases, ["GET /ok HTTP/1.1\r\nX-Smuggled: yes", "GET X", "", "PO(ST"])
    func aMethodThatIsNotATokenIsRefused(_ engine: TestEngine, _ method: String) async throws {
        let (error, requests) = try await Self.send(
            { server in
                var request = URLRequest(url: server.url(.ok))
                request.httpMethod = method
                return DTO(request: request)
            }, on: engine)
        #expect(error?.kind.name == "invalidRequest", "\(String(describing: error))")
        #expect(requests.isEmpty)
    }

    /// A `Content-Length` shorter than the body made two requests of one on URLSession (libcurl
    /// sends the caller's field and then the whole body).
    @Test(arguments: TestEngine.allCases)
    func aShortContentLengthCannotSmuggleASecondRequest(_ engine: TestEngine) async throws {
        let inner = "GET /ok?smuggled=1 HTTP/1.1\r\nHost: x\r\n\r\n"
        let (error, requests) = try await Self.send(
            { server in
                var request = URLRequest(url: server.url(.ok, query: "?outer=1"))
                request.httpMethod = "POST"
                request.httpBody = Data(("ab" + inner).utf8)
                request.setValue("2", forHTTPHeaderField: "Content-Length")
                return DTO(request: request)
            }, on: engine)
        #expect(error == nil)
        #expect(requests.count == 1, "\(requests.map(\.requestLine))")
        #expect(requests.first?.body == Data(("ab" + inner).utf8))
        #expect(!requests.contains { $0.requestLine.contains("smuggled") })
    }

    @Test(arguments: TestEngine.allCases)
    func theFieldsTheEngineOwnsAreDropped(_ engine: TestEngine) async throws {
        let (error, requests) = try await Self.send(
            { server in
                var request = URLRequest(url: server.url(.ok))
                request.allHTTPHeaderFields = [
                    "Host": "attacker.example", "Connection": "X-Note", "Transfer-Encoding": "chunked", "Upgrade": "h2c", "X-Note": "kept",
                ]
                return DTO(request: request)
            }, on: engine)
        #expect(error == nil)
        let request = try #require(requests.first)
        #expect(requests.count == 1)
        #expect(request.values(of: "Host").count == 1)
        #expect(request.values(of: "Host").first?.hasPrefix("127.0.0.1") == true)
        #expect(!request.values(of: "Host").contains("attacker.example"))
        #expect(!request.values(of: "Connection").contains("X-Note"))
        #expect(request.values(of: "Upgrade").isEmpty)
        #expect(request.values(of: "Transfer-Encoding").isEmpty)
        #expect(request.values(of: "X-Note") == ["kept"])
    }

    /// A stage (a service's own header step) is checked like the caller.
    @Test(arguments: TestEngine.allCases)
    func aStagesHeaderIsCheckedToo(_ engine: TestEngine) async throws {
        struct Adds: NetworkMiddleware {
            func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
                var fields = request.allHTTPHeaderFields ?? [:]
                fields["X-Tenant"] = "a\r\n\(HeaderInjectionTests.smuggled)"
                request.allHTTPHeaderFields = fields
                return .proceed
            }
        }
        let (error, requests) = try await Self.send(
            { server in
                let operation = DTO.get(server.url(.ok))
                operation.use(Adds())
                return operation
            }, on: engine)
        Self.expectRefused(error, naming: "X-Tenant")
        #expect(requests.isEmpty)
    }

    /// A method's headers and a call's are checked when the request is built: a `construction`
    /// error naming the header.
    @Test func anAPIMethodsHeaderWithCRLFIsAConstructionError() {
        enum Method: String, APIMethod {
            case get = "items.get"
            var headers: [String: String] { ["X-Note": "a\r\nX-Smuggled: yes"] }
            var httpMethod: HTTPMethod { .get }
            var encoding: RequestEncoding { .query }
            var defaultParameters: Parameters { [:] }
        }
        do {
            _ = try RequestConstructor.request(for: Method.get, baseURL: URL(string: "http://127.0.0.1:1/")!)
            Issue.record("built a request with a CR LF in a header")
        } catch {
            #expect(error.stageName == "construction")
            #expect(error.description.contains("X-Note"))
            #expect(!error.description.contains("Smuggled"))
        }
    }

    /// A token from a token endpoint's JSON with CR LF in it would add a header line; it fails the
    /// call at construction, and nothing is sent.
    @Test(arguments: TestEngine.allCases)
    func aTokenWithCRLFFailsTheCallBeforeAnythingIsSent(_ engine: TestEngine) async throws {
        let server = try await RecordingHTTPServer.start()
        let scope = APIScope(name: "crlf-token-\(engine)")
        scope.configure {
            $0.baseURL = server.url(.ok)
            $0.session = engine.session
        }
        scope.configureAuthentication(
            authenticator: ClosureAuthenticator { _ in Token(accessToken: "abc\r\n\(Self.smuggled)") })
        let operation = DTO.get(server.url(.ok))
        scope.authorize(operation)
        operation.on(engine)
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.error?.kind.name == "invalidRequest")
        #expect(server.requests.isEmpty)
        await server.stop()
    }
}
