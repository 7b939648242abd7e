import APILayer
import Foundation
import Mapper
import Templater

extension TrackerAPI {
    /// Sets the tracker API up, as a service does once at launch: base URL, templates, ISO-8601
    /// dates, and a bearer token from the client-credentials grant of its token endpoint.
    ///
    /// ```swift
    /// TrackerAPI.prepare(baseURL: URL(string: "https://tracker.example.com/rest/")!,
    ///                    tokenURL: URL(string: "https://tracker.example.com/rest/oauth/token")!,
    ///                    clientID: "my-service", clientSecret: secret)
    /// let issues = try await TrackerAPI.issues(owner: "octo-org", repo: "hello-world").run()
    /// ```
    /// - Returns: The coordinator of the API's token.
    @discardableResult
    public static func prepare(
        baseURL: URL, tokenURL: URL, clientID: String, clientSecret: String,
        store: any TokenStore = InMemoryTokenStore(), templates: TemplateStore, stubMode: StubMode = .off
    ) -> AuthenticationCoordinator {
        var mapper = Mapper.Configuration()
        mapper.dateDecodingStrategy = .iso8601
        api.configure {
            $0.baseURL = baseURL
            $0.templates = templates
            $0.stubMode = stubMode
            $0.mapperConfiguration = mapper
        }
        return api.configureAuthentication(
            authenticator: OAuthClientCredentialsAuthenticator(tokenURL: tokenURL, clientID: clientID, clientSecret: clientSecret),
            store: store)
    }
}
