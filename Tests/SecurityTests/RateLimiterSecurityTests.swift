import APILayer
import DemoServer
import Foundation
import NetOps
import NetOpsHTTP
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a server's rate-limit answer may hold back: only the calls of the caller it answered
/// (same origin, same credentials), never for more than the limiter's `maximumWait`, and never
/// because of a host a redirect reached.
@Suite("Security: rate limiter", .timeLimit(.minutes(2)))
struct RateLimiterSecurityTests {
    /// A scope with the default rate limiter whose calls end within `totalTimeout` seconds: a call
    /// held back by another caller's limit would end with `deadlineExceeded`, which is what the
    /// tests look for (an outcome, not a time, so a loaded machine does not fail them).
    static func scope(_ engine: TestEngine, totalTimeout: TimeInterval = 30) async throws -> APIScope {
        let server = try await TestServer.get()
        let scope = APIScope(name: "rate-\(UUID().uuidString.prefix(6))")
        scope.configure {
            $0.baseURL = server.baseURL
            $0.session = engine.session
            $0.totalTimeout = totalTimeout
        }
        return scope
    }

    /// A GET of `url` with `token` as its own credential, one of `scope`'s calls.
    static func call(_ url: URL, token: String, in scope: APIScope) -> DataTaskOperation {
        let operation = DTO.get(url, headers: ["Authorization": "Bearer \(token)"])
        scope.adopt(operation, tokenPlacement: nil)
        return operation
    }

    /// One caller's token is answered `429 Retry-After: 600`: that caller's calls wait, another
    /// caller's call of the same API is answered at once.
    @Test(arguments: TestEngine.allCases)
    func oneCallersRetryAfterParksOnlyThatCaller(_ engine: TestEngine) async throws {
        let scope = try await Self.scope(engine)
        let realm = "r\(UUID().uuidString.prefix(8))"
        let limited = Self.call(
            try await TestServer.url("realm/\(realm)/flaky?key=a&fail=100&status=429&retryAfter=600"), token: "userA", in: scope)
        limited.start()
        #expect(await eventually(within: 60) { limited.isPostponed })
        let other = Self.call(try await TestServer.url("json"), token: "userB", in: scope)
        _ = try? await other.run()
        #expect(other.statusCode == 200, "another caller's call waited for userA's limit: \(String(describing: other.error))")
        let again = Self.call(try await TestServer.url("json"), token: "userA", in: scope)
        again.start()
        #expect(await eventually(within: 60) { again.isPostponed }, "the limited caller's next call went")
        limited.cancel()
        again.cancel()
        await limited.finished()
        await again.finished()
    }

    /// A redirect to another host that answers `503 Retry-After: 600` sets no wait: the
    /// redirected call fails with the 503, and the API's next call is answered at once.
    @Test(arguments: TestEngine.allCases)
    func aRedirectTargetsRetryAfterIsIgnored(_ engine: TestEngine) async throws {
        let scope = try await Self.scope(engine)
        let other = try await OtherOriginServer.get()
        let realm = "r\(UUID().uuidString.prefix(8))"
        let target = URL(string: "realm/\(realm)/flaky?key=x&fail=100&status=503&retryAfter=600", relativeTo: other.baseURL)!.absoluteURL
        var components = URLComponents(url: try await TestServer.url("redirect"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "to", value: target.absoluteString)]
        let redirected = Self.call(components.url!, token: "userA", in: scope)
        _ = try? await redirected.run()
        #expect(redirected.error?.httpStatus == 503, "the redirected call waited: \(String(describing: redirected.error))")
        let next = Self.call(try await TestServer.url("json"), token: "userA", in: scope)
        _ = try? await next.run()
        #expect(next.statusCode == 200, "the API's next call waited: \(String(describing: next.error))")
    }

    /// A `Retry-After` of a year (and budget headers that say the same) holds calls back for at
    /// most the default `maximumWait`, a minute.
    @Test(arguments: TestEngine.allCases)
    func aRetryAfterOfAYearIsBoundedByDefault(_ engine: TestEngine) async throws {
        let limiter = RateLimiter()
        #expect(limiter.configuration.maximumWait <= 60)
        let session = engine.makeSession(options: .init(middleware: [limiter]))
        let realm = "r\(UUID().uuidString.prefix(8))"
        let far = DTO.get(try await TestServer.url("realm/\(realm)/flaky?key=y&fail=100&status=429&retryAfter=31536000")).on(session)
        far.start()
        #expect(await eventually(within: 60) { far.isPostponed })
        #expect(limiter.secondsBlocked > 0)
        #expect(limiter.secondsBlocked <= 60)
        far.cancel()
        await far.finished()
    }

    /// Past `maximumParkedCalls` calls waiting for a server, a call of the limited caller fails at
    /// once with a `WaitRefusal` instead of piling up until its deadline.
    @Test(arguments: TestEngine.allCases)
    func pastTheParkedCallsCapACallFailsAtOnce(_ engine: TestEngine) async throws {
        let limiter = RateLimiter(configuration: .init(maximumParkedCalls: 1))
        let session = engine.makeSession(options: .init(middleware: [limiter]))
        let realm = "r\(UUID().uuidString.prefix(8))"
        let limited = DTO.get(
            try await TestServer.url("realm/\(realm)/flaky?key=z&fail=100&status=429&retryAfter=600"),
            headers: ["Authorization": "Bearer userA"]
        ).on(session)
        limited.start()
        #expect(await eventually(within: 60) { limited.isPostponed })
        #expect(limiter.callsWaitingForServers == 1)
        let refused = DTO.get(try await TestServer.url("json"), headers: ["Authorization": "Bearer userA"]).on(session)
        await #expect(throws: NetOpsError.self) { try await refused.run() }
        let refusal = try #require(refused.error?.underlying as? RateLimiter.WaitRefusal, "\(String(describing: refused.error))")
        #expect(refusal.secondsLeft > 0 && refusal.secondsLeft <= 60)
        limited.cancel()
        await limited.finished()
    }
}
