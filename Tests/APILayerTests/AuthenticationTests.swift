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

/// One token refresh for any number of 401s, against DemoServer's OAuth 2.0 token endpoint.
///
/// Shared side of the process gate: most tests race a server-side delay against a deadline (a
/// 2 s refresh against the authenticator's 5 s timeout), which a load test beside them would
/// blow. Each coordinator parks in its own lot, so no test sees another's parked operations and
/// no test needs the gate exclusively; the storms, which load the process, are
/// `AuthenticationLoadTests`.
@Suite(.processGate(.shared, minutes: 5))
struct AuthenticationTests {
    /// A coordinator for `realm` that starts from a token the server never issued (so the first
    /// requests fail with 401) and a refresh token the realm accepts.
    static func coordinator(
        base: URL,
        configuration: AuthenticationCoordinator.Configuration = .init(),
        log: LogCapture = LogCapture()
    ) -> AuthenticationCoordinator {
        AuthenticationCoordinator(
            // 20 s: well above the 5 s the in-process test server took to answer in a loaded run.
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: base.appendingPathComponent("oauth/token"), timeout: 20),
            store: InMemoryTokenStore(Token(accessToken: "not-issued-\(UUID().uuidString)", refreshToken: "seed-1")),
            configuration: configuration,
            logger: log.logger())
    }

    static func guarded(_ operation: DTO, by coordinator: AuthenticationCoordinator) -> DTO {
        operation.use(coordinator)
        return operation
    }

    /// A token endpoint that hangs: the authenticator's timeout ends the refresh and every operation.
    @Test func hangingTokenEndpoint() async throws {
        let (server, realm, base) = try await TestServer.newRealm()
        server.tokenAuthority(realm: realm).configure(mode: .hang, delay: nil, lifetime: nil, maxUses: nil, expireAll: false)
        let coordinator = AuthenticationCoordinator(
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: base.appendingPathComponent("oauth/token"), timeout: 0.5),
            store: InMemoryTokenStore(Token(accessToken: "stale", refreshToken: "seed-1")))
        let operations = (0..<20).map { _ in Self.guarded(DTO.get(base.appendingPathComponent("protected")), by: coordinator) }
        for operation in operations { operation.start() }
        for operation in operations { await operation.finished() }
        #expect(operations.allSatisfy { $0.state == .failedFinished })
        guard case .authenticationFailed = operations[0].error?.kind else {
            Issue.record("expected authenticationFailed, got \(String(describing: operations[0].error))")
            return
        }
    }

    /// A refresh taking 2 s while new operations keep arriving: they wait for it instead of
    /// sending the stale token, and one refresh serves all.
    @Test func slowRefreshWhileOperationsKeepArriving() async throws {
        let (server, realm, base) = try await TestServer.newRealm()
        server.tokenAuthority(realm: realm).configure(mode: nil, delay: 2, lifetime: nil, maxUses: nil, expireAll: false)
        let coordinator = Self.coordinator(base: base)
        let url = base.appendingPathComponent("protected")
        var operations: [DTO] = []
        for wave in 0..<15 {
            for _ in 0..<6 {
                let operation = Self.guarded(DTO.get(url), by: coordinator)
                operation.start()
                operations.append(operation)
            }
            if wave < 14 { try await Task.sleep(for: .milliseconds(100)) }
        }
        for operation in operations { await operation.finished() }
        #expect(operations.allSatisfy { $0.state == .successFinished })
        #expect(server.tokenAuthority(realm: realm).snapshot.tokenRequests == 1)
    }

    /// A 401 for a request sent with an older token version is replayed at once with the
    /// current token: no second refresh. (Through the coordinator's older interceptor shape,
    /// which this also keeps working.)
    @available(*, deprecated, message: "exercises the deprecated interceptor adapter")
    @Test func staleVersionIsReplayedWithoutARefresh() async throws {
        let (_, _, base) = try await TestServer.newRealm()
        let coordinator = Self.coordinator(base: base)
        let operation = Self.guarded(DTO.get(base.appendingPathComponent("protected")), by: coordinator)
        guard case .proceed = coordinator.adapt(URLRequest(url: base), for: operation) else {
            Issue.record("a valid token must be sent")
            return
        }
        #expect(operation.values[AuthenticationCoordinator.TokenVersion.self] == 0)
        try await coordinator.authenticationProcess()
        #expect(coordinator.tokenVersion == 1)
        let unauthorized = HTTPURLResponse(url: base, statusCode: 401, httpVersion: "HTTP/1.1", headerFields: nil)!
        guard case .retry(after: 0) = coordinator.judge(unauthorized, body: Data(), for: operation) else {
            Issue.record("a 401 on an old token version must be replayed at once")
            return
        }
        #expect(coordinator.refreshCount == 1)
    }

    /// A service that refuses every fresh token: the loop guard stops refreshing.
    @Test func refreshLoopGuard() async throws {
        let (server, realm, base) = try await TestServer.newRealm()
        server.tokenAuthority(realm: realm).configure(mode: nil, delay: nil, lifetime: nil, maxUses: .some(0), expireAll: false)
        var configuration = AuthenticationCoordinator.Configuration()
        configuration.refreshLimit = 3
        let coordinator = Self.coordinator(base: base, configuration: configuration)
        let operation = Self.guarded(DTO.get(base.appendingPathComponent("protected")), by: coordinator)
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.error?.description.contains("excessiveRefresh") == true)
        #expect(server.tokenAuthority(realm: realm).snapshot.tokenRequests == 3)
    }

    /// A service that answers 200 with `{"error":{"error_code":5}}` for a bad token.
    @Test func bodyLevelAuthenticationError() async throws {
        let (server, realm, base) = try await TestServer.newRealm()
        var configuration = AuthenticationCoordinator.Configuration()
        configuration.placement = .queryParameter("access_token")
        configuration.bodySaysUnauthorized = { body in
            let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
            return ((object?["error"] as? [String: Any])?["error_code"] as? Int) == 5
        }
        let coordinator = Self.coordinator(base: base, configuration: configuration)
        let operations = (0..<30).map { _ in Self.guarded(DTO.get(base.appendingPathComponent("body-error")), by: coordinator) }
        for operation in operations { operation.start() }
        for operation in operations { await operation.finished() }
        #expect(operations.allSatisfy { $0.state == .successFinished })
        #expect(operations.allSatisfy { String(decoding: $0.receivedData, as: UTF8.self).contains("response") })
        #expect(server.tokenAuthority(realm: realm).snapshot.tokenRequests == 1)
        let token = try #require(coordinator.token?.accessToken)
        #expect(operations.allSatisfy { !($0.error?.description.contains(token) ?? false) })
    }

    /// The same service rule over the parsed body: one refresh for thirty operations.
    @Test func bodyLevelAuthenticationErrorByTheJSONRule() async throws {
        let (server, realm, base) = try await TestServer.newRealm()
        var configuration = AuthenticationCoordinator.Configuration()
        configuration.placement = .queryParameter("access_token")
        configuration.jsonSaysUnauthorized = { json in
            guard case let .object(root) = json, case let .object(error)? = root["error"] else { return false }
            return error["error_code"] == .int(5)
        }
        let coordinator = Self.coordinator(base: base, configuration: configuration)
        let operations = (0..<30).map { _ in Self.guarded(DTO.get(base.appendingPathComponent("body-error")), by: coordinator) }
        for operation in operations { operation.start() }
        for operation in operations { await operation.finished() }
        #expect(operations.allSatisfy { $0.state == .successFinished })
        #expect(operations.allSatisfy { String(decoding: $0.receivedData, as: UTF8.self).contains("response") })
        #expect(server.tokenAuthority(realm: realm).snapshot.tokenRequests == 1)
    }

    /// Cancelling a parked operation ends it at once and takes it out of the parked set.
    @Test func cancellingAParkedOperation() async throws {
        let (server, realm, base) = try await TestServer.newRealm()
        // The refresh takes 8 s: the operation stays parked that long, which a loaded run's
        // test task sees however late it wakes.
        server.tokenAuthority(realm: realm).configure(mode: nil, delay: 8, lifetime: nil, maxUses: nil, expireAll: false)
        let coordinator = Self.coordinator(base: base)
        let calls = Locked(0)
        let operation = Self.guarded(DTO.get(base.appendingPathComponent("protected")), by: coordinator)
            .onCompletion { _ in calls.withLock { $0 += 1 } }
        operation.start()
        let deadline = Date(timeIntervalSinceNow: 10)
        while !operation.isPostponed, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(operation.isPostponed)
        #expect(operation.state == .working)
        #expect(!operation.mayReleaseSyncWaiter)
        operation.cancel()
        #expect(operation.state == .cancelled)
        #expect(!operation.isPostponed)
        #expect(coordinator.parkingLot.operations.isEmpty)
        try await coordinator.authenticationProcess()
        #expect(operation.state == .cancelled)
        #expect(calls.withLock { $0 } == 1)
    }

    /// Operations parked behind a refresh that fails end in the order they parked, so a
    /// service showing one alert shows it for the first call. The refresh waits for the test
    /// to let it fail, after every operation parked (the first on DemoServer's 401, the rest
    /// because a refresh is running).
    @Test func failedRefreshEndsParkedOperationsFirstParkedFirst() async throws {
        let (_, _, base) = try await TestServer.newRealm()
        let gate = AsyncGate()
        let coordinator = AuthenticationCoordinator(
            authenticator: ClosureAuthenticator { _ in
                await gate.wait()
                throw AuthenticationError.tokenEndpoint(status: 400, error: "invalid_grant")
            },
            store: InMemoryTokenStore(Token(accessToken: "not-issued-\(UUID().uuidString)", refreshToken: "seed-1")))
        let order = Locked<[Int]>([])
        let operations = (0..<5).map { index in
            Self.guarded(DTO.get(base.appendingPathComponent("protected")), by: coordinator)
                .onCompletion { _ in order.withLock { $0.append(index) } }
        }
        for operation in operations {
            operation.start()
            #expect(await eventually { operation.isPostponed && coordinator.parkingLot.operations.contains { $0 === operation } })
        }
        #expect(coordinator.refreshCount == 1)
        gate.release()
        for operation in operations { await operation.finished() }
        #expect(order.withLock { $0 } == [0, 1, 2, 3, 4])
        #expect(operations.allSatisfy { $0.state == .failedFinished })
        #expect(operations.allSatisfy { $0.error?.description.contains("invalid_grant") == true })
    }

    /// Client credentials: a token for the service itself.
    @Test func clientCredentialsGrant() async throws {
        let (server, realm, base) = try await TestServer.newRealm()
        let authenticator = OAuthClientCredentialsAuthenticator(
            tokenURL: base.appendingPathComponent("oauth/token"), clientID: "demo-client", clientSecret: "demo-secret")
        let coordinator = AuthenticationCoordinator(authenticator: authenticator, store: InMemoryTokenStore())
        let operation = Self.guarded(DTO.get(base.appendingPathComponent("protected")), by: coordinator)
        try await operation.run()
        #expect(server.tokenAuthority(realm: realm).snapshot.tokenRequests == 1)
        #expect(coordinator.token?.userID == "1")

        let wrong = OAuthClientCredentialsAuthenticator(
            tokenURL: base.appendingPathComponent("oauth/token"), clientID: "demo-client", clientSecret: "nope")
        await #expect(throws: AuthenticationError.tokenEndpoint(status: 401, error: "invalid_client")) {
            try await wrong.refresh(current: nil)
        }
    }
}

/// The token placement of one operation, overriding its coordinator's. Shared side of the
/// process gate, as `AuthenticationTests`: its refresh has the same 5 s timeout.
@Suite(.processGate(.shared, minutes: 5))
struct PlacementOverrideTests {
    /// An operation whose `PlacementOverride` value says "query" carries the token there, on its
    /// first request and on its replay after the refresh, the stale value replaced, not repeated;
    /// an operation beside it keeps the coordinator's header.
    @Test func anOperationsPlacementWinsOverTheCoordinators() async throws {
        let (server, realm, base) = try await TestServer.newRealm()
        let coordinator = AuthenticationTests.coordinator(base: base)
        let viaQuery = AuthenticationTests.guarded(DTO.get(base.appendingPathComponent("protected")), by: coordinator)
        viaQuery.values[AuthenticationCoordinator.PlacementOverride.self] = .queryParameter("access_token")
        let viaHeader = AuthenticationTests.guarded(DTO.get(base.appendingPathComponent("protected")), by: coordinator)
        try await viaQuery.run()
        try await viaHeader.run()
        let token = try #require(coordinator.token?.accessToken)
        let sent = try #require(viaQuery.sentRequest)
        let query = URLComponents(url: try #require(sent.url), resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.filter { $0.name == "access_token" }.map(\.value) == [token])
        #expect(sent.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(viaHeader.sentRequest?.value(forHTTPHeaderField: "Authorization") == "Bearer \(token)")
        #expect(viaHeader.sentRequest?.url?.query == nil)
        #expect(server.tokenAuthority(realm: realm).snapshot.tokenRequests == 1)
    }
}
