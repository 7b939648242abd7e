import APILayer
import DemoServer
import Foundation
import NetOps
import Testing
import Validator

#if canImport(FoundationNetworking)
import FoundationNetworking
import TestSupport
#endif

/// Token storms: hundreds of operations on one expired or refused token, for one refresh.
///
/// Exclusive side of the process gate, for load only: each storm has its own realm, coordinator,
/// scope and NIO session, and its coordinator parks in a lot of its own, so no state is shared
/// with other tests; but a storm keeps both cores busy for a second or two, which blows the
/// deadlines the timing tests measure (measured: a 3 s idle timeout of `TimingTests` fired beside
/// one).
@Suite(.processGate(.exclusive, minutes: 5))
struct AuthenticationLoadTests {
    /// 500 operations at once on a token the server refuses — queued, awaited and synchronous
    /// from 16 threads — make exactly one call to the token endpoint and all succeed.
    @Test func stormOfFiveHundredCostsOneRefresh() async throws {
        let (server, realm, base) = try await TestServer.newRealm()
        let log = LogCapture()
        let coordinator = AuthenticationTests.coordinator(base: base, log: log)
        let url = base.appendingPathComponent("protected")
        let results = try await runStorm(url: url, coordinator: coordinator)

        #expect(results.count == 500)
        #expect(results.allSatisfy { $0 == .successFinished })
        #expect(server.tokenAuthority(realm: realm).snapshot.tokenRequests == 1)
        #expect(coordinator.refreshCount == 1)
        let token = try #require(coordinator.token)
        #expect(!log.text.contains(token.accessToken))
        #expect(!log.text.contains(token.refreshToken ?? "-"))
        #expect(log.text.contains("token refreshed"))
    }

    /// The same storm with a token endpoint that fails: every operation ends with its error,
    /// and every waiter (queue, await, syncStart) is released.
    @Test(arguments: [TokenAuthority.Mode.fail, .garbage])
    func failedRefreshEndsEveryOperation(_ mode: TokenAuthority.Mode) async throws {
        let (server, realm, base) = try await TestServer.newRealm()
        server.tokenAuthority(realm: realm).configure(mode: mode, delay: nil, lifetime: nil, maxUses: nil, expireAll: false)
        let coordinator = AuthenticationTests.coordinator(base: base)
        let results = try await runStorm(url: base.appendingPathComponent("protected"), coordinator: coordinator)
        #expect(results.count == 500)
        #expect(results.allSatisfy { $0 == .failedFinished })
        #expect(coordinator.parkingLot.operations.isEmpty)
    }

    /// A thousand calls of one API on an expired token, started at once: one refresh for all.
    @Test func aThousandCallsOnAnExpiredTokenCostOneRefresh() async throws {
        let server = try await TestServer.get()
        let realm = "storm\(UUID().uuidString.prefix(6))"
        let session = TestEngine.nio.makeSession()
        defer { Task { try? await session.shutdownNIOEngine() } }
        let scope = APIScope(name: "storm", configuration: APIScope.Configuration(baseURL: server.baseURL, session: session))
        var settings = AuthenticationCoordinator.Configuration()
        settings.refreshLimit = 100
        let coordinator = scope.configureAuthentication(
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: server.tokenURL(realm: realm)),
            store: InMemoryTokenStore(Token(accessToken: "", refreshToken: "seed-storm", expiresAt: .distantPast)),
            configuration: settings)
        try await APIManager.withDefaultAPI(scope) {
            _ = try await APIManager.call(ProtectedAPI.protected, properties: ["realm": realm], as: Granted.self)
            server.tokenAuthority(realm: realm).configure(mode: nil, delay: 0.2, lifetime: nil, maxUses: nil, expireAll: true)
            let storm = (0..<1_000).map { _ in APIManager.operation(ProtectedAPI.protected, properties: ["realm": realm], as: Granted.self) }
            for operation in storm { operation.start() }
            for operation in storm { await operation.finished() }
            let failed = storm.filter { $0.state != .successFinished }
            #expect(failed.isEmpty, "\(failed.count) failed, e.g. \(String(describing: failed.first?.result))")
        }
        #expect(coordinator.refreshCount == 2)
        #expect(server.tokenAuthority(realm: realm).snapshot.tokenRequests == 2)
    }

    /// Runs 500 guarded GETs: 200 in a queue, 200 awaited, 100 with syncStart on 16 threads.
    private func runStorm(url: URL, coordinator: AuthenticationCoordinator) async throws -> [OperationState] {
        let session = TestEngine.nio.makeSession()
        defer { Task { try? await session.shutdownNIOEngine() } }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 32
        let queued = (0..<200).map { _ in AuthenticationTests.guarded(DTO.get(url).on(session), by: coordinator) }
        for operation in queued { queue.addOperation(operation) }
        async let awaited: [OperationState] = withTaskGroup(of: OperationState.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    let operation = AuthenticationTests.guarded(DTO.get(url).on(session), by: coordinator)
                    _ = try? await operation.run()
                    return operation.state
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let synchronous = Locked<[OperationState]>([])
        await onThreads(16) { index in
            for _ in 0..<(index < 4 ? 7 : 6) {
                let operation = AuthenticationTests.guarded(DTO.get(url).on(session), by: coordinator).syncStart()
                synchronous.withLock { $0.append(operation.state) }
            }
        }
        for operation in queued { await operation.finished() }
        return await awaited + synchronous.withLock { $0 } + queued.map(\.state)
    }
}
