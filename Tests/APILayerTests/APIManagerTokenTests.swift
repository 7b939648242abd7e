import APILayer
import DemoServer
import Foundation
import NetOps
import TestSupport
import Testing
import Validator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `APIManager`'s token members (`isThereToken`, `updateToken`, `saveToken`, `token`,
/// `removeToken`) on the default API, end to end against DemoServer: each test binds a scope,
/// a session, a realm and a token file of its own.
/// Shared: the token endpoint's answer has the authenticator's 15 s idle timeout, which an
/// in-process DemoServer starved by a load test beside it can miss.
@Suite(.processGate(.shared, minutes: 2))
struct APIManagerTokenTests {
    /// A scope on the shared DemoServer with its own NIO-free session, and a scratch folder for
    /// its token file.
    private static func world() async throws -> (server: DemoServer, realm: String, scope: APIScope, folder: URL) {
        let server = try await TestServer.get()
        let realm = "t\(UUID().uuidString.prefix(8))"
        let scope = APIScope(name: "tokens-\(realm)", configuration: APIScope.Configuration(baseURL: server.baseURL, session: NetworkSession()))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-manager-\(UUID().uuidString)")
        return (server, realm, scope, folder)
    }

    /// A token the realm's token endpoint issues, as a login would give it.
    private static func login(_ server: DemoServer, realm: String) async throws -> Token {
        try await OAuthRefreshTokenAuthenticator(tokenURL: server.tokenURL(realm: realm))
            .refresh(current: Token(accessToken: "", refreshToken: "seed-login"))
    }

    @Test func withoutAuthenticationThereIsNoToken() async throws {
        let (_, _, scope, _) = try await Self.world()
        try APIManager.withDefaultAPI(scope) {
            #expect(!APIManager.isThereToken)
            #expect(APIManager.token == nil)
            #expect(throws: APIManagerError.authenticationNotConfigured) { try APIManager.updateToken(Token(accessToken: "a")) }
            // With no token there is nothing to save: `saveToken` returns, configured or not.
            try APIManager.saveToken()
            try APIManager.removeToken()
        }
    }

    /// A login's token given to `updateToken` is used on the wire at once (no refresh) and
    /// written to the token file; `saveToken` writes the current token again after the file
    /// went; `removeToken` forgets it in memory and on disk.
    @Test func updateSaveAndRemoveEndToEnd() async throws {
        let (server, realm, scope, folder) = try await Self.world()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("token.json")
        let store = FileTokenStore(fileURL: file)
        let coordinator = scope.configureAuthentication(
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: server.tokenURL(realm: realm)), store: store)
        defer { scope.removeAuthentication() }
        let login = try await Self.login(server, realm: realm)

        try await APIManager.withDefaultAPI(scope) {
            #expect(!APIManager.isThereToken)
            try APIManager.updateToken(login)
            #expect(APIManager.isThereToken)
            #expect(APIManager.token == login)
            #expect(try FileTokenStore(fileURL: file).load() == login, "a new store of the same file reads it")

            let granted = try await APIManager.call(ProtectedAPI.protected, properties: ["realm": realm], as: Granted.self)
            #expect(granted.ok)
            #expect(coordinator.refreshCount == 0)
            #expect(server.tokenAuthority(realm: realm).snapshot.tokenRequests == 1, "the login's only")

            try store.remove()
            #expect(try store.load() == nil)
            try APIManager.saveToken()
            #expect(try store.load() == login)
            #expect(APIManager.token == login)

            try APIManager.removeToken()
            #expect(!APIManager.isThereToken)
            #expect(try store.load() == nil)
            try APIManager.saveToken()
            #expect(try store.load() == nil, "no token: nothing saved")
        }
    }

    /// `saveToken()` while a refresh runs writes the token as it is, without changing it: the
    /// refresh keeps its result. (It used to install the token again, which counted as the token
    /// changing under the refresh, and the refreshed token was dropped.)
    @Test func saveTokenDuringARefreshKeepsTheRefreshedToken() async throws {
        let (server, realm, scope, _) = try await Self.world()
        let gate = AsyncGate()
        let entered = Locked(false)
        let oauth = OAuthRefreshTokenAuthenticator(tokenURL: server.tokenURL(realm: realm))
        let stale = Token(accessToken: "not-issued-\(realm)", refreshToken: "seed-\(realm)")
        let coordinator = scope.configureAuthentication(
            authenticator: ClosureAuthenticator { current in
                entered.withLock { $0 = true }
                await gate.wait()
                return try await oauth.refresh(current: current)
            },
            store: InMemoryTokenStore(stale))
        defer { scope.removeAuthentication() }

        let refreshed = try await APIManager.withDefaultAPI(scope) {
            let refresh = Task { try await APIManager.authenticationProcess() }
            #expect(await eventually { entered.withLock { $0 } })
            try APIManager.saveToken()
            gate.release()
            return try await refresh.value
        }
        #expect(coordinator.refreshCount == 1)
        #expect(server.tokenAuthority(realm: realm).snapshot.tokenRequests == 1)
        #expect(refreshed != stale)
        #expect(coordinator.token == refreshed)
    }

    /// A store that cannot be written: `updateToken` and `saveToken` throw its error, and the
    /// token is in use anyway.
    @Test func aStoreThatCannotBeWrittenThrowsButTheTokenIsUsed() async throws {
        let (server, realm, scope, folder) = try await Self.world()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The token file's folder would be a regular file: it cannot be made.
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let blocker = folder.appendingPathComponent("blocker")
        try Data("x".utf8).write(to: blocker)
        scope.configureAuthentication(
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: server.tokenURL(realm: realm)),
            store: FileTokenStore(fileURL: blocker.appendingPathComponent("token.json")))
        defer { scope.removeAuthentication() }
        let login = try await Self.login(server, realm: realm)

        try await APIManager.withDefaultAPI(scope) {
            #expect(throws: TokenStoreError.self) { try APIManager.updateToken(login) }
            #expect(APIManager.isThereToken)
            #expect(APIManager.token == login)
            #expect(throws: TokenStoreError.self) { try APIManager.saveToken() }
            let granted = try await APIManager.call(ProtectedAPI.protected, properties: ["realm": realm], as: Granted.self)
            #expect(granted.ok)
        }
    }
}
