import APILayer
import Foundation
import NetOps
import TestSupport
import Testing
import Validator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An API scope's own stages, between its session's and its authentication: each test makes its
/// session and its scope (bound to its task with `withDefaultAPI`), so the suite runs beside
/// every other and no test holds the process gate.
@Suite("API scopes: middleware", .timeLimit(.minutes(2)))
struct ScopeMiddlewareTests {
    /// What DemoServer's `/echo` saw.
    struct Seen: Decodable, Sendable {
        var headers: [String: String]?
    }

    /// Methods of whatever API the task binds.
    enum Plain: String, APIMethod {
        case echo
        case flaky

        var path: String { self == .flaky ? "realm/{realm}/flaky" : "echo" }
        var httpMethod: HTTPMethod { .get }
        var encoding: RequestEncoding { .query }
        var defaultParameters: Parameters { [:] }
        var validation: ValidationPolicy { .custom { _ in [] } }
    }

    /// Sets a header and notes the headers the request had when it came by.
    struct Tag: NetworkMiddleware {
        let name: String
        let value: String
        let seen = Locked<[[String: String]]>([])

        func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
            seen.withLock { $0.append(request.allHTTPHeaderFields ?? [:]) }
            request.setValue(value, forHTTPHeaderField: name)
            return .proceed
        }

        var count: Int { seen.withLock { $0.count } }
    }

    @Test(arguments: TestEngine.allCases) func sessionScopeAndAuthenticationStagesRunInOrder(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let outer = Tag(name: "X-Session", value: "s")
        let inner = Tag(name: "X-Scope", value: "a")
        var configuration = APIScope.Configuration(baseURL: server.baseURL, session: engine.makeSession(options: .init(middleware: [outer])))
        configuration.middleware = [inner]
        let scope = APIScope(name: "stages-\(engine)", configuration: configuration)
        scope.configureAuthentication(
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: server.baseURL.appendingPathComponent("oauth/token")),
            store: InMemoryTokenStore(Token(accessToken: "scope-token")))
        let seen = try await APIManager.withDefaultAPI(scope) { try await APIManager.call(Plain.echo, as: Seen.self) }
        #expect(seen.headers?["x-session"] == "s")
        #expect(seen.headers?["x-scope"] == "a")
        #expect(seen.headers?["authorization"] == "Bearer scope-token")
        // The session's stage came first, then the scope's, and the token after both.
        #expect(inner.seen.withLock { $0 }.first?["X-Session"] == "s")
        #expect(inner.seen.withLock { $0 }.first?["Authorization"] == nil)
    }

    /// A scope reconfigured while a call is in flight: the call keeps the chain it started
    /// with, also for its retry; calls made afterwards get the new one.
    @Test(arguments: TestEngine.allCases) func aCallKeepsTheChainItStartedWith(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let first = Tag(name: "X-Version", value: "1")
        let second = Tag(name: "X-Version", value: "2")
        var configuration = APIScope.Configuration(
            baseURL: server.baseURL, session: engine.makeSession(), retryPolicy: RetryPolicy(maximumAttempts: 2, baseDelay: 0.01))
        configuration.middleware = [first]
        let scope = APIScope(name: "reconfigured-\(engine)", configuration: configuration)
        let realm = "mw-\(UUID().uuidString.prefix(8))"
        try await APIManager.withDefaultAPI(scope) {
            let inFlight = APIManager.operation(
                Plain.flaky, properties: ["realm": realm, "key": "k", "fail": "1", "status": "503", "retryAfter": "1"], as: Seen.self)
            inFlight.start()
            #expect(await eventually { inFlight.attemptsMade == 1 })
            scope.configure { $0.middleware = [second] }
            _ = try await inFlight.run()
            #expect(inFlight.attemptsMade == 2)
            #expect(first.count == 2, "the retry left the chain the call started with")
            #expect(second.count == 0)
            let later = try await APIManager.call(Plain.echo, as: Seen.self)
            #expect(later.headers?["x-version"] == "2")
        }
    }

    /// A stage of the scope that refuses a response: the call fails with the stage's error as
    /// the underlying value of the transport error it names.
    @Test(arguments: TestEngine.allCases) func aScopeStageRefusal(_ engine: TestEngine) async throws {
        struct Refuse: NetworkMiddleware {
            struct Refused: Error {}
            func judge(_ outcome: AttemptOutcome, verdict: inout Verdict, context: MiddlewareContext) throws {
                if verdict.isAccept { verdict = .fail(Refused()) }
            }
        }
        let server = try await TestServer.get()
        var configuration = APIScope.Configuration(baseURL: server.baseURL, session: engine.makeSession())
        configuration.middleware = [Refuse()]
        let scope = APIScope(name: "refusal-\(engine)", configuration: configuration)
        let operation = APIManager.withDefaultAPI(scope) { APIManager.operation(Plain.echo, as: Seen.self) }
        _ = try? await operation.run()
        guard case let .failure(error)? = operation.result, case let .transport(netOps) = error.stage else {
            Issue.record("expected a transport error, got \(String(describing: operation.result))")
            return
        }
        #expect(netOps.underlying is Refuse.Refused)
    }
}
