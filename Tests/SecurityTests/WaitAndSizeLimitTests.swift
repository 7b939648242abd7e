import APILayer
import DemoServer
import Foundation
import NetOps
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every wait ends and every body has a bound: a server that drips, sends informational heads
/// forever or answers at length cannot hold a call or the memory it keeps.
@Suite("Security: waits and sizes", .processGate(.shared))
struct WaitAndSizeLimitTests {
    @Test func everyScopeHasATotalDeadlineAndABodyLimitByDefault() {
        let configuration = APIScope.Configuration()
        #expect(configuration.totalTimeout == 120)
        #expect(configuration.maximumResponseBodyBytes == 64 << 20)
        #expect(configuration.usesCookies == false)
    }

    @Test func aPlainOperationKeepsAt64MiBByDefault() {
        #expect(DTO.get("http://127.0.0.1:1/").maximumResponseBodyBytes == 64 << 20)
        #expect(DTO.get("http://127.0.0.1:1/").totalTimeout == nil)
    }

    /// One byte every 100 ms keeps the idle clock fresh forever; the total deadline ends it.
    @Test(arguments: TestEngine.allCases)
    func aDrippingServerMeetsTheTotalDeadline(_ engine: TestEngine) async throws {
        let server = try await RecordingHTTPServer.start()
        let operation = DTO.get(server.url(.drip)).on(engine)
        operation.idleTimeout = 2
        operation.totalTimeout = 1
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.error?.kind == .deadlineExceeded(seconds: 1))
        await server.stop()
    }

    /// An API's calls have the scope's deadline without asking for it.
    @Test(arguments: TestEngine.allCases)
    func anAPICallGetsTheScopesTotalDeadline(_ engine: TestEngine) async throws {
        let server = try await RecordingHTTPServer.start()
        let scope = APIScope(name: "drip")
        scope.configure {
            $0.session = engine.session
            $0.totalTimeout = 1
        }
        let operation = DTO.get(server.url(.drip)).on(engine)
        scope.adopt(operation, tokenPlacement: nil)
        #expect(operation.totalTimeout == 1)
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.error?.kind == .deadlineExceeded(seconds: 1))
        await server.stop()
    }

    /// `102 Processing` every 100 ms is not progress: the idle timeout ends the call.
    @Test(arguments: TestEngine.allCases)
    func informationalHeadsDoNotResetTheIdleClock(_ engine: TestEngine) async throws {
        let server = try await RecordingHTTPServer.start()
        let operation = DTO.get(server.url(.informational)).on(engine)
        operation.idleTimeout = 1
        operation.totalTimeout = 20
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.error?.kind == .idleTimeout(seconds: 1), "\(String(describing: operation.error))")
        await server.stop()
    }

    /// The token answer is read up to 1 MiB: a token endpoint that answers at length fails the
    /// refresh instead of filling memory.
    @Test func theTokenRequestReadsAtMostOneMebibyte() async throws {
        let url = try await TestServer.url("large-token/\(2 << 20)")
        let authenticator = OAuthClientCredentialsAuthenticator(tokenURL: url, clientID: "demo", clientSecret: "secret")
        do {
            _ = try await authenticator.refresh(current: nil)
            Issue.record("a 2 MiB answer made a token")
        } catch let error as AuthenticationError {
            #expect(error.description.contains("\(BaseOperation.responseBodyTooLargeCode)") || error.description.contains("limit"), "\(error)")
        }
    }
}
