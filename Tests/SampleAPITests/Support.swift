import APILayer
import DemoServer
import Foundation
import NetOps
import SampleAPI
import SampleTemplates
import Templater
import TestSupport

/// One test's SampleService: a realm nobody else uses, and APIManager set up for it.
struct SampleFixture {
    let server: DemoServer
    let realm: String
    let coordinator: AuthenticationCoordinator

    /// The realm's service state (latency, faults, call counts).
    var service: SampleService { server.sampleService(realm: realm) }
    /// The realm's token authority (token lifetime, counters).
    var tokens: TokenAuthority { server.tokenAuthority(realm: realm) }
}

/// Runs `body` with a default API of its own (bound to the test's task), set up for a fresh
/// realm of SampleService (templates from the shipped folder, signed in with a refresh token):
/// tests running side by side never share a token, a base URL or a stub switch.
func withSampleService(
    templates: TemplateStore = TemplateStore(directory: SampleTemplates.directory),
    _ body: (SampleFixture) async throws -> Void
) async throws {
    let server = try await TestServer.get()
    let realm = "s\(UUID().uuidString.prefix(8))"
    try await APIManager.withDefaultAPI(APIScope(name: realm)) {
        let coordinator = SampleAPI.prepareAPIManager(
            baseURL: server.sampleAPIBaseURL(realm: realm), tokenURL: server.tokenURL(realm: realm),
            store: InMemoryTokenStore(SampleAPI.signedOutToken(refreshToken: "seed-\(realm)")), templates: templates)
        try await body(SampleFixture(server: server, realm: realm, coordinator: coordinator))
    }
}

/// `body`'s APIError, or nil when it threw nothing or another error.
func apiError<T>(_ body: () async throws -> T) async -> APIError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error as? APIError
    }
}
