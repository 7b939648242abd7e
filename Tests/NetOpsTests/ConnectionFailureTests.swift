import Foundation
import NetOps
import NetOpsHTTP
import NetOpsNIO
import TestSupport
import Testing

/// Failures that are not transient end at once on both engines, with each engine's *default*
/// configuration (not the tests' one, which turns the NIO engine's connection retries off);
/// retries of a connection belong to the retry policy, where the circuit breaker sees each
/// failure; and a request a server drops on a kept-alive connection before answering is sent
/// once more when it may be.
@Suite("Connection failures", .timeLimit(.minutes(2)))
struct ConnectionFailureTests {
    /// A session of `engine` with that engine's defaults.
    static func defaultSession(_ engine: TestEngine, options: NetworkSession.Options = NetworkSession.Options()) -> NetworkSession {
        // The defaults but a connect timeout of a minute, as long as URLSession's: a retry loop
        // would last that long, far from what a loaded machine adds to a failure at once.
        engine == .nio ? NetworkSession.nio(configuration: .init(connectTimeout: 60), options: options) : NetworkSession(options: options)
    }

    /// A URL on 127.0.0.1 whose port nothing listens on.
    static func refusedURL() async throws -> URL {
        let server = try await ScriptedHTTPServer.start { _ in .text("ok") }
        let url = server.url("/gone")
        await server.stop()
        return url
    }

    /// What "at once" means here: well under the minute an engine-level retry loop would take
    /// (the sessions' connect timeout), with room for a busy machine (three refused attempts took
    /// 9 s once, beside a benchmark); the tests tell the loop's absence, not a speed.
    static let atOnce = 20.0

    /// `operation` run to its end: its error and how long it took.
    static func timed(_ operation: BaseOperation) async -> (error: NetOpsError?, seconds: Double) {
        let started = ContinuousClock.now
        _ = try? await operation.run()
        let elapsed = ContinuousClock.now - started
        return (operation.error, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// A refused connection: `cannotConnect`, at once (the NIO engine's default used to retry it
    /// for its 10 s connect timeout).
    @Test(arguments: TestEngine.allCases)
    func aRefusedConnectionFailsAtOnce(_ engine: TestEngine) async throws {
        let session = Self.defaultSession(engine)
        defer { Task { try? await session.shutdownNIOEngine() } }
        let (error, seconds) = await Self.timed(DTO.get(try await Self.refusedURL()).on(session))
        guard case .cannotConnect? = error?.kind else {
            Issue.record("expected cannotConnect, got \(String(describing: error))")
            return
        }
        #expect(seconds < Self.atOnce, "a refused connection took \(seconds) s to fail")
    }

    /// A name that does not resolve: `cannotConnect`, at once.
    @Test(arguments: TestEngine.allCases)
    func aNameThatDoesNotResolveFailsAtOnce(_ engine: TestEngine) async throws {
        let session = Self.defaultSession(engine)
        defer { Task { try? await session.shutdownNIOEngine() } }
        let host = "apilayer-no-such-host.invalid"
        // The engine cannot fail sooner than the system's resolver answers, and that takes what
        // the machine's DNS server takes: "at once" is that time plus the margin above.
        let lookup = await Self.systemLookupSeconds(host)
        let (error, seconds) = await Self.timed(DTO.get("http://\(host)/").on(session))
        guard case .cannotConnect? = error?.kind else {
            Issue.record("expected cannotConnect, got \(String(describing: error))")
            return
        }
        #expect(seconds < lookup + Self.atOnce, "an unknown name took \(seconds) s to fail (the system's lookup \(lookup) s)")
    }

    /// How long `getaddrinfo` takes to give up on `host`, on a thread of its own.
    static func systemLookupSeconds(_ host: String) async -> Double {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let started = ContinuousClock.now
                var result: UnsafeMutablePointer<addrinfo>?
                if getaddrinfo(host, "80", nil, &result) == 0 { freeaddrinfo(result) }
                let elapsed = ContinuousClock.now - started
                continuation.resume(returning: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            }
        }
    }

    /// A certificate the engine refuses — one from a CA it does not trust, one for another name —
    /// fails the handshake at once, as `tls`.
    @Test(.requires(.nginx, .openssl), arguments: TestEngine.allCases)
    func aRefusedCertificateFailsAtOnce(_ engine: TestEngine) async throws {
        try await withTLSNginx { _, nginx in
            let session = Self.defaultSession(engine)
            defer { Task { try? await session.shutdownNIOEngine() } }
            for url in [nginx.http1, nginx.wrongName] {
                let (error, seconds) = await Self.timed(DTO.get(url.appendingPathComponent("json")).on(session))
                guard case .tls? = error?.kind else {
                    Issue.record("expected tls for \(url), got \(String(describing: error))")
                    continue
                }
                #expect(seconds < Self.atOnce, "a refused certificate took \(seconds) s to fail")
            }
        }
    }

    /// Connection retries are the retry policy's: a refused connection is tried `maximumAttempts`
    /// times, and the circuit breaker counts each attempt.
    @Test(arguments: TestEngine.allCases)
    func theRetryPolicyRetriesARefusedConnectionAndTheBreakerSeesEachAttempt(_ engine: TestEngine) async throws {
        let url = try await Self.refusedURL()
        let breaker = CircuitBreaker(configuration: .init(failureThreshold: 3, coolDown: 60))
        let session = Self.defaultSession(engine, options: .init(retryPolicy: RetryPolicy(maximumAttempts: 3, baseDelay: 0.01)))
        defer { Task { try? await session.shutdownNIOEngine() } }
        let operation = DTO.get(url).on(session).use(breaker)
        let (error, seconds) = await Self.timed(operation)
        guard case .cannotConnect? = error?.kind else {
            Issue.record("expected cannotConnect, got \(String(describing: error))")
            return
        }
        #expect(operation.attemptsMade == 3)
        #expect(seconds < Self.atOnce, "three refused attempts took \(seconds) s")
        guard case .open = breaker.state(of: url) else {
            Issue.record("the breaker saw fewer than 3 failures: \(breaker.state(of: url))")
            return
        }
        let post = DTO.post(url, parameters: ["a": "1"]).on(session)
        _ = await Self.timed(post)
        #expect(post.attemptsMade == 1, "a POST is not retried")
    }

    /// A server that drops a kept-alive connection under its next request, before a byte of the
    /// answer: an idempotent request is sent once more, on a new connection, and succeeds.
    @Test(arguments: TestEngine.allCases)
    func anIdempotentRequestDroppedOnAKeptAliveConnectionIsSentAgain(_ engine: TestEngine) async throws {
        let server = try await ScriptedHTTPServer.start { request in
            request.indexOnConnection == 0 ? .text("answer \(request.path)") : .close
        }
        defer { Task { await server.stop() } }
        let session = Self.defaultSession(engine)
        defer { Task { try? await session.shutdownNIOEngine() } }
        try await DTO.get(server.url("/first")).on(session).run()
        for (method, path) in [(HTTPMethod.get, "/get"), (.put, "/put"), (.delete, "/delete")] {
            let operation = DTO.request(method, server.url(path)).on(session)
            try await operation.run()
            #expect(String(decoding: operation.receivedData, as: UTF8.self) == "answer \(path)")
            let sent = server.requests(to: path)
            #expect(sent.count == 2, "\(method): sent \(sent.count) times")
            #expect(Set(sent.map(\.connection)).count == sent.count, "\(method): sent again on the same connection")
            #expect(operation.attemptsMade == 1, "the engine sends it again; the retry policy is not involved")
        }
    }

    /// The same drop under a POST: the NIO engine does not send it again (the server may have
    /// acted on it) unless it carries an `Idempotency-Key`. libcurl, under the URLSession engine,
    /// sends any request again on a fresh connection after such a drop, and FoundationNetworking
    /// cannot rewind a body for it (it asks a per-task delegate, which its delegate sessions never
    /// have): the head goes again and the body never follows, so the POST reaches the server whole
    /// once and ends by the idle timeout (measured: `Docs/engines.md`).
    @Test(arguments: TestEngine.allCases)
    func aPOSTDroppedOnAKeptAliveConnectionIsNotSentAgain(_ engine: TestEngine) async throws {
        let server = try await ScriptedHTTPServer.start { request in
            request.indexOnConnection == 0 ? .text("answer \(request.path)") : .close
        }
        defer { Task { await server.stop() } }
        let session = Self.defaultSession(engine)
        defer { Task { try? await session.shutdownNIOEngine() } }
        try await DTO.get(server.url("/first")).on(session).run()
        let post = DTO.post(server.url("/post"), parameters: ["a": "1"]).on(session)
        post.idleTimeout = 2
        let (error, _) = await Self.timed(post)
        #expect(server.requests(to: "/post").count == 1, "a POST was sent \(server.requests(to: "/post").count) times")
        // What matters is that the POST went once; how it ends depends on which the engine notices
        // first on a busy machine, the closed connection or its idle time.
        switch (engine, error?.kind) {
        case (.nio, .connectionLost?), (.nio, .idleTimeout?), (.urlSession, .idleTimeout?): break
        default: Issue.record("\(engine): got \(String(describing: error))")
        }
        guard engine == .nio else { return }

        try await DTO.get(server.url("/second")).on(session).run()
        let keyed = DTO.post(server.url("/keyed"), parameters: ["a": "1"], headers: ["Idempotency-Key": "k-1"]).on(session)
        try await keyed.run()
        #expect(server.requests(to: "/keyed").count == 2)
    }
}
