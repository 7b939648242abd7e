import Foundation
import Logging
import Mapper
import NetOps
import Templater
import Validator

/// The facade a service calls: static members only.
///
/// Behind the static front sits one `Sendable` configuration that tests and services replace
/// as a whole. Authentication is set up once:
///
/// ```swift
/// APIManager.configureAuthentication(
///     authenticator: OAuthRefreshTokenAuthenticator(tokenURL: tokenURL),
///     store: FileTokenStore(service: "my-service"))
/// ```
///
/// From then on every NetOps operation carries the token, and any number of requests failing
/// with 401 at once cost one refresh.
public enum APIManager {
    static let current = Locked(Components())

    /// The replaceable parts behind the static members.
    struct Components: Sendable {
        var authentication: AuthenticationCoordinator?
        var logger = Logger(label: "APILayer")
        var baseURL: URL?
        var templates: TemplateStore = Templater.shared
        var stubMode: StubMode = .off
        var mapperConfiguration = Mapper.Configuration()
    }

    /// The log APILayer writes to (swift-log). Token values never appear in it.
    public static var logger: Logger {
        get { current.withLock { $0.logger } }
        set { current.withLock { $0.logger = newValue } }
    }

    // MARK: Authentication

    /// Sets up authentication: the coordinator becomes the interceptor of every operation that
    /// has none of its own, and the stored token (if readable) is restored.
    ///
    /// - Returns: the coordinator, for callers that want to watch it.
    @discardableResult
    public static func configureAuthentication(
        authenticator: any Authenticator,
        store: any TokenStore = InMemoryTokenStore(),
        configuration: AuthenticationCoordinator.Configuration = .init()
    ) -> AuthenticationCoordinator {
        let coordinator = AuthenticationCoordinator(authenticator: authenticator, store: store, configuration: configuration,
                                                    logger: logger)
        current.withLock { $0.authentication = coordinator }
        BaseOperation.defaultInterceptor = coordinator
        return coordinator
    }

    /// Turns authentication off: operations no longer carry a token.
    public static func removeAuthentication() {
        current.withLock { $0.authentication = nil }
        BaseOperation.defaultInterceptor = nil
    }

    /// The coordinator in use, if authentication is set up.
    public static var authentication: AuthenticationCoordinator? {
        current.withLock { $0.authentication }
    }

    /// The current token.
    public static var token: Token? { authentication?.token }

    /// Whether there is a token.
    public static var isThereToken: Bool { token != nil }

    /// Replaces the token (after a login) and saves it.
    ///
    /// - Throws: `TokenStoreError` when it cannot be saved (it is in use anyway).
    public static func updateToken(_ token: Token) throws {
        try requireAuthentication().updateToken(token)
    }

    /// Saves the current token in the store.
    ///
    /// - Throws: `TokenStoreError`.
    public static func saveToken() throws {
        guard let token else { return }
        try requireAuthentication().updateToken(token)
    }

    /// Reloads the token from the store (a corrupt store counts as none, and is logged).
    @discardableResult
    public static func restoreToken() -> Token? {
        authentication?.restoreToken()
    }

    /// Forgets the token in memory and in the store.
    ///
    /// - Throws: `TokenStoreError`.
    public static func removeToken() throws {
        try authentication?.removeToken()
    }

    /// Refreshes the token now (or joins the refresh already running); parked operations are
    /// replayed when it succeeds and failed when it fails.
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
