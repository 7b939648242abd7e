import APILayer
import DemoServer
import Foundation
import Logging
import NetOps
import NetOpsNIO
import Templater
import TestSupport
import Testing
import Validator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What DemoServer's `/echo` saw.
private struct Seen: Decodable, Sendable {
    var query: [String: String]
    var headers: [String: String]

    var authorization: String? { headers["authorization"] }
}

/// What the methods of the two test APIs share: an echo, a realm's protected route, a redirect.
private protocol EchoMethods: APIMethod {}

extension EchoMethods {
    var path: String { rawValue == "protected" ? "realm/{realm}/protected" : rawValue }
    var httpMethod: HTTPMethod { .get }
    var encoding: RequestEncoding { .query }
    var defaultParameters: Parameters { [:] }
    var validation: ValidationPolicy { .custom { _ in [] } }
}

/// Methods of the API under test.
private enum AlphaAPI: String, EchoMethods {
    case echo
    case protected
    case redirect

    static let scope = APIScope(name: "alpha")
    static var api: APIScope { scope }
}

/// Methods of a second API, on another origin.
private enum BetaAPI: String, EchoMethods {
    case echo
    case protected

    static let scope = APIScope(name: "beta")
    static var api: APIScope { scope }
}

/// A scope set up on `base` with a token of its own, for the scope-local tests.
private func authenticatedScope(
    _ name: String, base: URL, token: String, tokenURL: URL? = nil,
    logger: Logger? = nil
) -> (APIScope, AuthenticationCoordinator) {
    var configuration = APIScope.Configuration(baseURL: base)
    if let logger { configuration.logger = logger }
    let scope = APIScope(name: name, configuration: configuration)
    let coordinator = scope.configureAuthentication(
        authenticator: OAuthRefreshTokenAuthenticator(tokenURL: tokenURL ?? base.appendingPathComponent("oauth/token")),
        store: InMemoryTokenStore(Token(accessToken: token, refreshToken: "seed-\(name)")))
    return (scope, coordinator)
}

/// Scopes, serialized: `AlphaAPI` and `BetaAPI` are bound to two process-wide scopes that these
/// tests configure.
@Suite("API scopes", .serialized, .processGate(.shared, minutes: 5))
struct ScopeTests {
    /// `configure` calls from many threads at once: none of their changes is lost.
    @Test func concurrentConfigureCallsAllTakeEffect() async throws {
        let scope = APIScope(name: "configure-race")
        let threads = 8
        let perThread = 200
        try await offCooperativePool {
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                for index in 0..<perThread {
                    scope.configure { $0.trustedOrigins.append(URL(string: "https://h\(thread)-\(index).example")!) }
                }
            }
        }
        let origins = scope.configuration.trustedOrigins
        #expect(origins.count == threads * perThread)
        #expect(Set(origins).count == threads * perThread)
    }

    /// The bug a service met: after configuring authentication, a plain operation to another
    /// host carried the API's token. Plain operations carry none, on any host.
    @Test func aPlainOperationNeverCarriesAnAPIsToken() async throws {
        let server = try await TestServer.get()
        let other = try await OtherOriginServer.get()
        try await APIManager.withDefaultAPI(APIScope(name: "plain")) {
            APIManager.prepareBeforeUsing(baseURL: server.baseURL)
            APIManager.configureAuthentication(
                authenticator: OAuthRefreshTokenAuthenticator(tokenURL: server.baseURL),
                store: InMemoryTokenStore(Token(accessToken: "secret-plain")))
            #expect(NetworkSession.shared.options.middleware.isEmpty)
            for url in [other.baseURL, server.baseURL] {
                let plain = try await DTO.get(url.appendingPathComponent("echo")).run()
                let seen = try plain.decode(Seen.self)
                #expect(seen.authorization == nil, "\(url)")
            }
            let own = try await APIManager.call(AlphaLike.echo, as: Seen.self)
            #expect(own.authorization == "Bearer secret-plain")
        }
    }

    @Test func authorizePlacesTheTokenOnTheAPIsOriginsOnly() async throws {
        let server = try await TestServer.get()
        let other = try await OtherOriginServer.get()
        let (scope, _) = authenticatedScope("authorize", base: server.baseURL, token: "secret-authorize")
        func seen(at url: URL) async throws -> Seen {
            let operation = DTO.get(url.appendingPathComponent("echo"))
            scope.authorize(operation)
            return try await operation.run().decode(Seen.self)
        }
        #expect(try await seen(at: server.baseURL).authorization == "Bearer secret-authorize")
        #expect(try await seen(at: other.baseURL).authorization == nil)
        // An origin is scheme, host and port: the same host on another port is another origin.
        let otherPort = try #require(URL(string: "http://127.0.0.1:\(server.port == 1 ? 2 : 1)/"))
        scope.configure { $0.trustedOrigins = [otherPort] }
        #expect(try await seen(at: other.baseURL).authorization == nil)
        scope.configure { $0.trustedOrigins = [other.baseURL.appendingPathComponent("any/path")] }
        #expect(try await seen(at: other.baseURL).authorization == "Bearer secret-authorize")
    }

    @Test(arguments: TestEngine.allCases)
    func aRedirectToAnotherOriginArrivesWithoutTheToken(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let other = try await OtherOriginServer.get()
        AlphaAPI.scope.configuration = APIScope.Configuration(baseURL: server.baseURL, session: engine.session)
        AlphaAPI.scope.configureAuthentication(
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: server.baseURL),
            store: InMemoryTokenStore(Token(accessToken: "secret-redirect")))
        defer { AlphaAPI.scope.removeAuthentication() }
        let target = other.baseURL.appendingPathComponent("echo").absoluteString
        let seen = try await APIManager.call(AlphaAPI.redirect, properties: ["to": target], as: Seen.self)
        #expect(seen.authorization == nil)
        let same = try await APIManager.call(
            AlphaAPI.redirect, properties: ["to": server.baseURL.appendingPathComponent("echo").absoluteString],
            as: Seen.self)
        #expect(same.authorization == "Bearer secret-redirect")
    }

    /// A 401 from another origin says nothing about the API's token: no refresh, no parking.
    @Test func aRefusalFromAnotherOriginStartsNoRefresh() async throws {
        let server = try await TestServer.get()
        let other = try await OtherOriginServer.get()
        let (scope, coordinator) = authenticatedScope("refusal", base: server.baseURL, token: "secret-refusal")
        let foreign = DTO.get(other.baseURL.appendingPathComponent("auth/plain"))
        scope.authorize(foreign)
        _ = try? await foreign.run()
        #expect(foreign.statusCode == 401)
        #expect(foreign.state == .failedFinished)
        #expect(coordinator.refreshCount == 0)
        #expect(foreign.parkingLot == nil)
        #expect(coordinator.parkingLot.operations.isEmpty)
    }

    /// Two APIs in one process, each with its base URL, token store and authenticator, called
    /// side by side after both tokens expired: each refreshes once, only its own token, and
    /// neither token reaches the other's server.
    @Test(arguments: TestEngine.allCases)
    func twoAPIsRefreshTheirOwnTokensOnlyAndKeepThemApart(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let other = try await OtherOriginServer.get()
        let alphaRealm = "alpha\(UUID().uuidString.prefix(6))"
        let betaRealm = "beta\(UUID().uuidString.prefix(6))"
        let alphaBase = server.baseURL.appendingPathComponent("realm/\(alphaRealm)/")
        let betaBase = other.baseURL.appendingPathComponent("realm/\(betaRealm)/")
        AlphaAPI.scope.configuration = APIScope.Configuration(baseURL: server.baseURL, session: engine.session)
        BetaAPI.scope.configuration = APIScope.Configuration(baseURL: other.baseURL, session: engine.session)
        let alpha = AlphaAPI.scope.configureAuthentication(
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: alphaBase.appendingPathComponent("oauth/token")),
            store: InMemoryTokenStore(Token(accessToken: "", refreshToken: "seed-alpha", expiresAt: .distantPast)))
        let beta = BetaAPI.scope.configureAuthentication(
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: betaBase.appendingPathComponent("oauth/token")),
            store: InMemoryTokenStore(Token(accessToken: "", refreshToken: "seed-beta", expiresAt: .distantPast)))
        defer {
            AlphaAPI.scope.removeAuthentication()
            BetaAPI.scope.removeAuthentication()
        }
        _ = try await APIManager.call(AlphaAPI.protected, properties: ["realm": alphaRealm], as: Granted.self)
        _ = try await APIManager.call(BetaAPI.protected, properties: ["realm": betaRealm], as: Granted.self)
        #expect(alpha.refreshCount == 1 && beta.refreshCount == 1)
        server.tokenAuthority(realm: alphaRealm).configure(mode: nil, delay: 0.2, lifetime: nil, maxUses: nil, expireAll: true)
        other.tokenAuthority(realm: betaRealm).configure(mode: nil, delay: 0.2, lifetime: nil, maxUses: nil, expireAll: true)

        let granted = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<60 {
                group.addTask {
                    index.isMultiple(of: 2)
                        ? try await APIManager.call(AlphaAPI.protected, properties: ["realm": alphaRealm], as: Granted.self).ok
                        : try await APIManager.call(BetaAPI.protected, properties: ["realm": betaRealm], as: Granted.self).ok
                }
            }
            var all: [Bool] = []
            for try await ok in group { all.append(ok) }
            return all
        }
        #expect(granted.count == 60 && granted.allSatisfy { $0 })
        #expect(alpha.refreshCount == 2 && beta.refreshCount == 2)
        #expect(server.tokenAuthority(realm: alphaRealm).snapshot.tokenRequests == 2)
        #expect(other.tokenAuthority(realm: betaRealm).snapshot.tokenRequests == 2)

        let alphaToken = try #require(alpha.token?.accessToken)
        let betaToken = try #require(beta.token?.accessToken)
        #expect(alphaToken != betaToken)
        let alphaSeen = try await APIManager.call(AlphaAPI.echo, as: Seen.self)
        let betaSeen = try await APIManager.call(BetaAPI.echo, as: Seen.self)
        #expect(alphaSeen.authorization == "Bearer \(alphaToken)")
        #expect(betaSeen.authorization == "Bearer \(betaToken)")
        // What each server received: the other API's token never.
        #expect(!other.credentialsSeen().contains { $0.carries(alphaToken) })
        #expect(!server.credentialsSeen().contains { $0.carries(betaToken) })
        #expect(other.credentialsSeen().contains { $0.carries(betaToken) })
    }

    /// Two APIs may share a base URL: each method still sends its own API's token.
    @Test func twoAPIsOnOneBaseURLSendTheirOwnTokens() async throws {
        let server = try await TestServer.get()
        AlphaAPI.scope.configuration = APIScope.Configuration(baseURL: server.baseURL)
        BetaAPI.scope.configuration = APIScope.Configuration(baseURL: server.baseURL)
        AlphaAPI.scope.configureAuthentication(
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: server.baseURL),
            store: InMemoryTokenStore(Token(accessToken: "secret-one")))
        BetaAPI.scope.configureAuthentication(
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: server.baseURL),
            store: InMemoryTokenStore(Token(accessToken: "secret-two")))
        defer {
            AlphaAPI.scope.removeAuthentication()
            BetaAPI.scope.removeAuthentication()
        }
        #expect(try await APIManager.call(AlphaAPI.echo, as: Seen.self).authorization == "Bearer secret-one")
        #expect(try await APIManager.call(BetaAPI.echo, as: Seen.self).authorization == "Bearer secret-two")
    }

    /// Each API has its own stub switch.
    @Test func eachAPIHasItsOwnStubSwitch() async throws {
        let server = try await TestServer.get()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-scopes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let templates = TemplateStore(directory: folder)
        try templates.write(.object(["query": .object([:]), "headers": .object(["stub": .string("yes")])]), for: "echo")
        AlphaAPI.scope.configuration = APIScope.Configuration(baseURL: server.baseURL, templates: templates, stubMode: .immediate)
        BetaAPI.scope.configuration = APIScope.Configuration(baseURL: server.baseURL, templates: templates)
        let requestsBefore = server.statistics.requests
        let stubbed = try await APIManager.call(AlphaAPI.echo, as: Seen.self)
        #expect(stubbed.headers["stub"] == "yes")
        let live = try await APIManager.call(BetaAPI.echo, as: Seen.self)
        #expect(live.headers["stub"] == nil)
        #expect(server.statistics.requests >= requestsBefore + 1)
        AlphaAPI.scope.configure { $0.stubMode = .off }
    }

    /// Two APIs given one token store by mistake: each would overwrite the other's saved token
    /// and both would load the same one after a restart; the second configuration says so.
    @Test func aTokenStoreSharedByTwoAPIsIsReported() throws {
        let capture = LogCapture()
        let store = InMemoryTokenStore(Token(accessToken: "shared"))
        let first = APIScope(name: "first")
        let second = APIScope(name: "second", configuration: .init(logger: capture.logger()))
        first.configureAuthentication(
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: URL(string: "http://127.0.0.1:1/")!),
            store: store)
        second.configureAuthentication(
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: URL(string: "http://127.0.0.1:1/")!),
            store: store)
        let errors = capture.messages(atLeast: .error)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("already used by API first") == true)
        #expect(!capture.text.contains("shared"), "the token itself is never logged")
        // A store of its own: nothing to report.
        let third = APIScope(name: "third", configuration: .init(logger: capture.logger()))
        third.configureAuthentication(
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: URL(string: "http://127.0.0.1:1/")!),
            store: InMemoryTokenStore())
        #expect(capture.messages(atLeast: .error).count == 1)
        withExtendedLifetime(first) {}
    }
}

/// A method of the default API, for the test of plain operations.
private enum AlphaLike: String, EchoMethods {
    case echo
}
