import Foundation
import Logging
import Mapper
import NetOps
import Templater
import Validator

/// The facade a service calls: static members only.
///
/// `APIManager` composes the per-API values (`APIScope`): every method enum belongs to one
/// API, by default `APIManager.defaultAPI`, which the static members below configure. A service
/// with one API writes:
///
/// ```swift
/// APIManager.prepareBeforeUsing(baseURL: URL(string: "https://api.example.com/method/")!)
/// APIManager.configureAuthentication(
///     authenticator: OAuthRefreshTokenAuthenticator(tokenURL: tokenURL),
///     store: FileTokenStore(service: "my-service"))
/// let users = try await APIManager.call(MyAPI.usersGet, as: [User].self, at: "response")
/// ```
///
/// A service that calls several APIs gives each its own `APIScope` (see there). The operations
/// of an API's methods carry its token on its origins only; any number of them failing with
/// 401 at once cost one refresh. Plain NetOps operations never carry a token.
public enum APIManager {
    /// The API of methods that name none, when no task-local one is set.
    private static let processDefaultAPI = APIScope(name: "default")

    /// A default API bound to the current task (and its child tasks) by `withDefaultAPI`.
    @TaskLocal static var taskDefaultAPI: APIScope?

    /// The API of methods that name none: the one `withDefaultAPI` bound to the current task,
    /// else the process's.
    public static var defaultAPI: APIScope { taskDefaultAPI ?? processDefaultAPI }

    /// Runs `body` with `scope` as the default API of the current task and its child tasks: a
    /// test, or a tenant of a multi-tenant service, gets its own default API without touching
    /// the process's. Operations read their API when they are made, so make them inside `body`.
    public static func withDefaultAPI<Result: Sendable>(
        _ scope: APIScope, _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await $taskDefaultAPI.withValue(scope) { try await body() }
    }

    /// `withDefaultAPI` for synchronous code on the calling thread.
    public static func withDefaultAPI<Result>(_ scope: APIScope, _ body: () throws -> Result) rethrows -> Result {
        try $taskDefaultAPI.withValue(scope) { try body() }
    }

    /// The log the default API writes to (swift-log). Token values never appear in it.
    public static var logger: Logger {
        get { defaultAPI.configuration.logger }
        set { defaultAPI.configure { $0.logger = newValue } }
    }

    // MARK: Authentication of the default API

    /// Sets up the default API's authentication: its methods' operations carry the token (on
    /// its origins only), and the stored token (if readable) is restored.
    ///
    /// - Returns: the coordinator, for callers that want to watch it.
    @discardableResult
    public static func configureAuthentication(
        authenticator: any Authenticator,
        store: any TokenStore = InMemoryTokenStore(),
        configuration: AuthenticationCoordinator.Configuration = .init()
    ) -> AuthenticationCoordinator {
        defaultAPI.configureAuthentication(authenticator: authenticator, store: store, configuration: configuration)
    }

    /// Turns the default API's authentication off: its operations no longer carry a token.
    public static func removeAuthentication() {
        defaultAPI.removeAuthentication()
    }

    /// The default API's coordinator, if authentication is set up.
    public static var authentication: AuthenticationCoordinator? {
        defaultAPI.authentication
    }

    /// The default API's current token.
    public static var token: Token? { authentication?.token }

    /// Whether the default API has a token.
    public static var isThereToken: Bool { token != nil }

    /// Replaces the default API's token (after a login) and saves it.
    ///
    /// - Throws: `TokenStoreError` when it cannot be saved (it is in use anyway).
    public static func updateToken(_ token: Token) throws {
        try requireAuthentication().updateToken(token)
    }

    /// Saves the default API's current token in its store.
    ///
    /// - Throws: `TokenStoreError`.
    public static func saveToken() throws {
        guard token != nil else { return }
        try requireAuthentication().saveToken()
    }

    /// Reloads the default API's token from its store (a corrupt store counts as none, and is logged).
    @discardableResult
    public static func restoreToken() -> Token? {
        authentication?.restoreToken()
    }

    /// Forgets the default API's token in memory and in its store.
    ///
    /// - Throws: `TokenStoreError`.
    public static func removeToken() throws {
        try authentication?.removeToken()
    }

    /// Refreshes the default API's token now (or joins the refresh already running); parked
    /// operations are replayed when it succeeds and failed when it fails.
    ///
    /// - Throws: the authenticator's error.
    @discardableResult
    public static func authenticationProcess() async throws -> Token {
        try await requireAuthentication().authenticationProcess()
    }

    private static func requireAuthentication() throws -> AuthenticationCoordinator {
        guard let coordinator = authentication else { throw APIManagerError.authenticationNotConfigured }
        return coordinator
    }
}

/// Misuse of `APIManager`.
public enum APIManagerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A token member was used before `configureAuthentication`.
    case authenticationNotConfigured

    /// One readable line.
    public var description: String {
        switch self {
        case .authenticationNotConfigured: return "APIManager.configureAuthentication(…) was not called"
        }
    }
}
