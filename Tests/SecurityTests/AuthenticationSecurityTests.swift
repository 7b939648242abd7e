import APILayer
import DemoServer
import Foundation
import NetOps
import TestSupport
import Testing

/// A token change is never undone by a refresh that was already running, and a coordinator
/// touches only the operations it parked itself.
@Suite("Security: authentication state", .processGate(.shared, minutes: 2))
struct AuthenticationSecurityTests {
    /// A token the realm's token endpoint issued (so the realm's routes admit it).
    static func issuedToken(base: URL) async throws -> Token {
        // 20 s: well above the 5 s the in-process test server took to answer in a loaded run.
        try await OAuthRefreshTokenAuthenticator(tokenURL: base.appendingPathComponent("oauth/token"), timeout: 20)
            .refresh(current: Token(accessToken: "none", refreshToken: "seed-\(UUID().uuidString)"))
    }

    /// A coordinator whose refreshes wait for `gate`, then return `result` (or throw it).
    static func gated(
        _ gate: AsyncGate, returning result: @escaping @Sendable () throws -> Token, store: InMemoryTokenStore,
        configuration: AuthenticationCoordinator.Configuration = .init()
    ) -> AuthenticationCoordinator {
        AuthenticationCoordinator(
            authenticator: ClosureAuthenticator { _ in
                await gate.wait()
                return try result()
            },
            store: store, configuration: configuration)
    }

    /// A DTO for `url` whose token `coordinator` places, counting its completions.
    static func guarded(_ url: URL, by coordinator: AuthenticationCoordinator, engine: TestEngine, completions: Locked<Int>) -> DTO {
        let operation = DTO.get(url).on(engine)
        operation.use(coordinator)
        operation.onCompletion { _ in completions.withLock { $0 += 1 } }
        return operation
    }

    /// `removeToken()` while a refresh runs: when the refresh returns (with a good token) the
    /// token stays removed, in memory and in the store, and the operation parked on the refresh
    /// fails with a clear error instead of going out with the refreshed token.
    @Test(arguments: TestEngine.allCases)
    func aLogoutDuringARefreshStaysALogout(_ engine: TestEngine) async throws {
        let (_, _, base) = try await SecurityRealm.new()
        let fresh = try await Self.issuedToken(base: base)
        let gate = AsyncGate()
        let store = InMemoryTokenStore(Token(accessToken: "not-issued-\(UUID().uuidString)", refreshToken: "seed-1"))
        let coordinator = Self.gated(gate, returning: { fresh }, store: store)
        let completions = Locked(0)
        let operation = Self.guarded(base.appendingPathComponent("protected"), by: coordinator, engine: engine, completions: completions)
        operation.start()
        #expect(await eventually { operation.isPostponed && coordinator.refreshCount == 1 })

        try coordinator.removeToken()
        gate.release()
        #expect(await eventually { operation.isFinishedOrCancelled })
        await operation.finished()

        #expect(coordinator.token == nil, "the refresh brought the token back after the logout")
        #expect(try store.load() == nil, "the refresh saved a token after the logout")
        #expect(operation.state == .failedFinished)
        #expect(operation.error?.description.contains("removed") == true, "\(String(describing: operation.error))")
        #expect(completions.withLock { $0 } == 1)
        #expect(coordinator.parkingLot.operations.isEmpty)
    }

    /// `updateToken(_:)` while a refresh runs: the refresh's (stale) result is dropped, the new
    /// token stays in memory and in the store, and the parked operation is replayed with it.
    @Test(arguments: TestEngine.allCases)
    func aLoginDuringARefreshWins(_ engine: TestEngine) async throws {
        let (_, _, base) = try await SecurityRealm.new()
        let login = try await Self.issuedToken(base: base)
        let gate = AsyncGate()
        let store = InMemoryTokenStore(Token(accessToken: "not-issued-\(UUID().uuidString)", refreshToken: "seed-1"))
        let coordinator = Self.gated(gate, returning: { Token(accessToken: "stale-from-refresh") }, store: store)
        let completions = Locked(0)
        let operation = Self.guarded(base.appendingPathComponent("protected"), by: coordinator, engine: engine, completions: completions)
        operation.start()
        #expect(await eventually { operation.isPostponed && coordinator.refreshCount == 1 })

        try coordinator.updateToken(login)
        gate.release()
        await operation.finished()

        #expect(coordinator.token == login)
        #expect(try store.load() == login)
        #expect(operation.state == .successFinished, "\(String(describing: operation.error))")
        #expect(coordinator.refreshCount == 1)
        #expect(completions.withLock { $0 } == 1)
    }

    /// An operation a caller parked by hand (`BaseOperation.postpone`) belongs to the caller:
    /// its coordinator neither replays it at once nor when a refresh ends.
    @Test(arguments: TestEngine.allCases)
    func aCallersParkedOperationIsLeftToTheCaller(_ engine: TestEngine) async throws {
        let coordinator = AuthenticationCoordinator(
            authenticator: ClosureAuthenticator { _ in Token(accessToken: "fresh-\(UUID().uuidString)") },
            store: InMemoryTokenStore(Token(accessToken: "valid")))
        let completions = Locked(0)
        let operation = Self.guarded(try await TestServer.url("delay?seconds=5"), by: coordinator, engine: engine, completions: completions)
        operation.start()
        #expect(await eventually { operation.attemptsMade == 1 })
        #expect(BaseOperation.postpone(operation))
        try await coordinator.authenticationProcess()
        try await Task.sleep(for: .milliseconds(200))
        #expect(operation.isPostponed, "the coordinator replayed an operation it did not park")
        #expect(operation.parkingLot === operation.privateSession?.parkingLot)
        #expect(coordinator.parkingLot.operations.isEmpty)
        #expect(completions.withLock { $0 } == 0)
        // The caller ends it.
        #expect(operation.parkingLot?.take(operation) == true)
        operation.failPostponed(with: NetOpsError(.cancelled, url: nil))
        await operation.finished()
        #expect(completions.withLock { $0 } == 1)
    }

    /// Checked and holding: one API's refresh replays only its own parked operations; another
    /// API's stay parked until their own refresh ends, and then carry their own token.
    @Test(arguments: TestEngine.allCases)
    func aRefreshReplaysOnlyItsOwnAPIsOperations(_ engine: TestEngine) async throws {
        let (_, _, base) = try await SecurityRealm.new()
        let tokenB = try await Self.issuedToken(base: base)
        let gateB = AsyncGate()
        let coordinatorA = AuthenticationCoordinator(
            authenticator: ClosureAuthenticator { _ in Token(accessToken: "token-of-A") },
            store: InMemoryTokenStore(Token(accessToken: "old-A")))
        let coordinatorB = Self.gated(
            gateB, returning: { tokenB }, store: InMemoryTokenStore(Token(accessToken: "not-issued-\(UUID().uuidString)", refreshToken: "seed-1")))
        let completions = Locked(0)
        let operationB = Self.guarded(base.appendingPathComponent("protected"), by: coordinatorB, engine: engine, completions: completions)
        operationB.start()
        #expect(await eventually { operationB.isPostponed && coordinatorB.refreshCount == 1 })

        try await coordinatorA.authenticationProcess()
        try await Task.sleep(for: .milliseconds(100))
        #expect(operationB.isPostponed, "API A's refresh replayed API B's operation")

        gateB.release()
        await operationB.finished()
        #expect(operationB.state == .successFinished, "\(String(describing: operationB.error))")
        #expect(completions.withLock { $0 } == 1)
    }
}

/// A realm of DemoServer's token authority that no other test uses.
enum SecurityRealm {
    /// The base URL of a new realm (`…/realm/<name>`): its own tokens and counters.
    static func new() async throws -> (server: DemoServer, realm: String, base: URL) {
        let server = try await TestServer.get()
        let realm = "sec\(UUID().uuidString.prefix(8))"
        return (server, realm, server.baseURL.appendingPathComponent("realm/\(realm)"))
    }
}
