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

/// `APIManager.syncQueue` (one operation at a time) and `asyncQueue` (concurrent) while a token
/// refresh runs: an operation parked on a 401 is still executing, so on the serial queue it holds
/// every operation queued after it — even one that needs no token — until the refresh ends and
/// it is replayed.
///
/// These are the process's two queues (nothing else in the test process queues on `syncQueue`);
/// the scope, session, realm and coordinator are the test's own. The refresh is held by a gate
/// the test opens, so nothing depends on timing.
@Suite(.processGate(.shared, minutes: 2))
struct SyncQueueTests {
    /// The parts of one run: a scope whose stale token draws a 401, and whose refresh waits for
    /// `gate` (`entered` says it began).
    private struct World {
        let server: DemoServer
        let realm: String
        let scope: APIScope
        let coordinator: AuthenticationCoordinator
        let gate: AsyncGate
        let entered: Locked<Bool>
    }

    private static func world() async throws -> World {
        let server = try await TestServer.get()
        let realm = "q\(UUID().uuidString.prefix(8))"
        let scope = APIScope(name: "queue-\(realm)", configuration: APIScope.Configuration(baseURL: server.baseURL, session: NetworkSession()))
        let gate = AsyncGate()
        let entered = Locked(false)
        let oauth = OAuthRefreshTokenAuthenticator(tokenURL: server.tokenURL(realm: realm))
        let coordinator = scope.configureAuthentication(
            authenticator: ClosureAuthenticator { current in
                entered.withLock { $0 = true }
                await gate.wait()
                return try await oauth.refresh(current: current)
            },
            store: InMemoryTokenStore(Token(accessToken: "not-issued-\(realm)", refreshToken: "seed-\(realm)")))
        return World(server: server, realm: realm, scope: scope, coordinator: coordinator, gate: gate, entered: entered)
    }

    @Test func aRefreshHoldsTheSerialQueue() async throws {
        #expect(APIManager.syncQueue.maxConcurrentOperationCount == 1)
        let world = try await Self.world()
        defer { world.scope.removeAuthentication() }
        let guarded = APIManager.withDefaultAPI(world.scope) {
            APIManager.operation(ProtectedAPI.protected, properties: ["realm": world.realm], as: Granted.self)
        }
        let unrelated = DTO.get(world.server.baseURL.appendingPathComponent("echo")).on(NetworkSession())
        APIManager.syncQueue.addOperation(guarded)
        APIManager.syncQueue.addOperation(unrelated)

        // The guarded operation met its 401, parked, and the refresh began.
        #expect(await eventually { guarded.isPostponed && world.entered.withLock { $0 } })
        #expect(guarded.state == .working)
        // Current behaviour: the serial queue waits for the parked operation, refresh included.
        #expect(unrelated.state == .readyToStart)
        #expect(!unrelated.isExecuting)

        world.gate.release()
        await guarded.finished()
        #expect(guarded.state == .successFinished)
        await unrelated.finished()
        #expect(unrelated.state == .successFinished)
        #expect(world.coordinator.refreshCount == 1)
        #expect(world.server.tokenAuthority(realm: world.realm).snapshot.tokenRequests == 1)
    }

    /// The contrast: on the concurrent queue the same unrelated operation ends while the refresh
    /// is still held.
    @Test func theConcurrentQueueIsNotHeld() async throws {
        let world = try await Self.world()
        defer { world.scope.removeAuthentication() }
        let guarded = APIManager.withDefaultAPI(world.scope) {
            APIManager.operation(ProtectedAPI.protected, properties: ["realm": world.realm], as: Granted.self)
        }
        let unrelated = DTO.get(world.server.baseURL.appendingPathComponent("echo")).on(NetworkSession())
        APIManager.asyncQueue.addOperation(guarded)
        #expect(await eventually { guarded.isPostponed && world.entered.withLock { $0 } })
        APIManager.asyncQueue.addOperation(unrelated)
        await unrelated.finished()
        #expect(unrelated.state == .successFinished)
        #expect(guarded.isPostponed, "the refresh is still held")

        world.gate.release()
        await guarded.finished()
        #expect(guarded.state == .successFinished)
    }
}
