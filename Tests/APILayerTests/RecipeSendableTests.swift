import APILayer
import Foundation
import NetOps
import Testing

/// The recipe's public API used from `@Sendable` contexts: compiles under Swift 6 or fails the build.
@Suite("Recipe Sendable")
struct RecipeSendableTests {
    @Test func methodsErrorsAndRequestsCrossConcurrencyDomains() async throws {
        let method = DemoAPI.usersGet
        let built = try await Task.detached { @Sendable in
            try RequestConstructor.request(for: method, properties: ["ids": [1]], baseURL: URL(string: "http://example.test")!)
        }.value
        #expect(built.request.url?.path == "/users.get")
        let error = await Task.detached { @Sendable () -> APIError? in
            do throws(APIError) {
                _ = try RequestConstructor.request(for: method, baseURL: nil)
                return nil
            } catch {
                return error
            }
        }.value
        #expect(error?.stageName == "construction")
        let mode: StubMode = .delayed(1)
        #expect(await Task.detached { @Sendable in mode }.value == .delayed(1))
    }
}
