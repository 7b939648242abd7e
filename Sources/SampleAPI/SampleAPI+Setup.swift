import APILayer
import Foundation
import NetOps
import Templater

extension SampleAPI {
    /// How APILayer authenticates with SampleService: the token goes in the `access_token`
    /// parameter, and a body with error code 5 (whatever the status) means the token failed.
    public static var authenticationConfiguration: AuthenticationCoordinator.Configuration {
        var configuration = AuthenticationCoordinator.Configuration()
        configuration.placement = .queryParameter("access_token")
        configuration.jsonSaysUnauthorized = { SampleServiceError.saysUnauthorized(json: $0) }
        return configuration
    }

    /// Sets `APIManager` up for SampleService, as a service does once at launch: base URL,
    /// templates, and authentication refreshing through the OAuth 2.0 token endpoint.
    ///
    /// ```swift
    /// SampleAPI.prepareAPIManager(baseURL: URL(string: "https://api.example.com/method/")!,
    ///                             tokenURL: URL(string: "https://api.example.com/oauth/token")!,
    ///                             store: FileTokenStore(service: "my-service"))
    /// let me = try await APIManager.users().first
    /// ```
    /// - Parameters:
    ///   - baseURL: Where the methods are (`…/method/`).
    ///   - tokenURL: The OAuth 2.0 token endpoint (refresh-token grant).
    ///   - store: Where the token is kept; a stored token is used at once.
    ///   - templates: Where the methods' templates are.
    ///   - stubMode: Whether calls answer from templates instead of the network.
    /// - Returns: The authentication coordinator (its refresh count, token version).
    @discardableResult
    public static func prepareAPIManager(
        baseURL: URL, tokenURL: URL, store: any TokenStore = InMemoryTokenStore(),
        templates: TemplateStore = Templater.shared, stubMode: StubMode = .off
    ) -> AuthenticationCoordinator {
        APIManager.prepareBeforeUsing(baseURL: baseURL, templates: templates, stubMode: stubMode)
        return APIManager.configureAuthentication(
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: tokenURL),
            store: store, configuration: authenticationConfiguration)
    }

    /// A token that holds only a refresh token (what a login screen hands over): the first call
    /// exchanges it for an access token.
    public static func signedOutToken(refreshToken: String) -> Token {
        Token(accessToken: "", refreshToken: refreshToken, expiresAt: .distantPast)
    }
}
