import DemoServer
import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// DemoServer's refresh-token rotation and token-endpoint stall, spoken to over HTTP: a spent
/// refresh token presented again revokes the realm's grant; a stalled request is answered 503
/// without spending its grant.
@Suite(.timeLimit(.minutes(1)))
struct TokenRotationRealmTests {
    /// A status and the JSON object of an answer.
    struct Answer {
        var status: Int
        var json: [String: Any]
    }

    /// A fresh realm of the shared server, its base URL and a session of its own.
    struct Realm {
        var base: URL
        let session = URLSession(configuration: .ephemeral)

        init() async throws {
            let server = try await TestServer.get()
            base = server.baseURL.appendingPathComponent("realm/rotation-\(UUID().uuidString)")
        }

        /// `POST control` with `settings` as JSON; returns the snapshot.
        @discardableResult
        func control(_ settings: [String: Any]) async throws -> TokenAuthority.Snapshot {
            var request = URLRequest(url: base.appendingPathComponent("control"))
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: settings)
            let (data, _) = try await session.data(for: request)
            return try JSONDecoder().decode(TokenAuthority.Snapshot.self, from: data)
        }

        /// `GET control`: the realm's settings and counters.
        func snapshot() async throws -> TokenAuthority.Snapshot {
            let (data, _) = try await session.data(from: base.appendingPathComponent("control"))
            return try JSONDecoder().decode(TokenAuthority.Snapshot.self, from: data)
        }

        /// A `refresh_token` grant with `refreshToken`.
        func refresh(_ refreshToken: String) async throws -> Answer {
            var request = URLRequest(url: base.appendingPathComponent("oauth/token"))
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data("grant_type=refresh_token&refresh_token=\(refreshToken)".utf8)
            let (data, response) = try await session.data(for: request)
            let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
            return Answer(status: (response as? HTTPURLResponse)?.statusCode ?? 0, json: json)
        }

        /// The status of `GET protected` with `accessToken`.
        func protected(_ accessToken: String) async throws -> Int {
            var request = URLRequest(url: base.appendingPathComponent("protected"))
            request.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization")
            let (_, response) = try await session.data(for: request)
            return (response as? HTTPURLResponse)?.statusCode ?? 0
        }
    }

    @Test func aSpentRefreshTokenPresentedAgainRevokesTheGrant() async throws {
        let realm = try await Realm()
        try await realm.control(["rotation": true])
        let seed = "seed-\(UUID().uuidString)"

        let first = try await realm.refresh(seed)
        #expect(first.status == 200)
        let access = try #require(first.json["access_token"] as? String)
        let rotated = try #require(first.json["refresh_token"] as? String)
        #expect(rotated != seed)
        #expect(try await realm.protected(access) == 200)

        let reuse = try await realm.refresh(seed)
        #expect(reuse.status == 400)
        #expect(reuse.json["error"] as? String == "invalid_grant")
        #expect(try await realm.protected(access) == 401)
        let afterRevocation = try await realm.refresh(rotated)
        #expect(afterRevocation.status == 400)
        #expect(afterRevocation.json["error"] as? String == "invalid_grant")

        let snapshot = try await realm.snapshot()
        #expect(snapshot.rotation)
        #expect(snapshot.revoked)
        #expect(snapshot.refreshes == 1)
        #expect(snapshot.reusedRefreshTokens == 1)
        #expect(snapshot.tokenRequests == 3)

        // A new login still works, and its rotated token works once.
        let login = try await realm.refresh("seed-\(UUID().uuidString)")
        #expect(login.status == 200)
        let next = try #require(login.json["refresh_token"] as? String)
        #expect(try await realm.refresh(next).status == 200)
        #expect(try await realm.refresh(next).status == 400)
    }

    @Test func withoutRotationARefreshTokenWorksAgain() async throws {
        let realm = try await Realm()
        let seed = "seed-\(UUID().uuidString)"
        let first = try await realm.refresh(seed)
        #expect(first.status == 200)
        let access = try #require(first.json["access_token"] as? String)
        let issued = try #require(first.json["refresh_token"] as? String)
        #expect(try await realm.refresh(seed).status == 200)
        #expect(try await realm.refresh(issued).status == 200)
        #expect(try await realm.refresh(issued).status == 200)
        #expect(try await realm.protected(access) == 200)

        let snapshot = try await realm.snapshot()
        #expect(!snapshot.rotation)
        #expect(!snapshot.revoked)
        #expect(snapshot.refreshes == 4)
        #expect(snapshot.reusedRefreshTokens == 0)
    }

    @Test func aStalledRequestAnswers503WithoutSpendingItsGrant() async throws {
        let realm = try await Realm()
        let settings = try await realm.control(["rotation": true, "stallRefreshes": 1, "stallSeconds": 0.3])
        #expect(settings.stallRefreshes == 1)
        let seed = "seed-\(UUID().uuidString)"

        let clock = ContinuousClock()
        let start = clock.now
        let stalled = try await realm.refresh(seed)
        let elapsed = clock.now - start
        #expect(stalled.status == 503)
        #expect(stalled.json["error"] as? String == "temporarily_unavailable")
        #expect(elapsed >= .milliseconds(300))

        let retried = try await realm.refresh(seed)
        #expect(retried.status == 200)
        #expect(retried.json["refresh_token"] is String)

        let snapshot = try await realm.snapshot()
        #expect(snapshot.stallRefreshes == 0)
        #expect(snapshot.stalledRefreshes == 1)
        #expect(snapshot.refreshes == 1)
        #expect(snapshot.reusedRefreshTokens == 0)
        #expect(!snapshot.revoked)
    }
}
