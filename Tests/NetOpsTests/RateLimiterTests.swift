import Foundation
import TestSupport
import Testing

@testable import NetOps
@testable import NetOpsHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The server's rate limits and a budget of the service's own: calls over a limit are parked
/// and replayed in order, none fails for it, and the server refuses none it could have avoided.
/// Against DemoServer's `/limited` and `/realm/…/flaky`, each test with its own limiter,
/// session and key. Shared: the tests time the server's windows and `Retry-After` waits, which a
/// load test beside them would stretch.
@Suite(.processGate(.shared, minutes: 1))
struct RateLimiterTests {
    /// Notes each request as it leaves, after the limiter let it go.
    final class Sent: NetworkMiddleware, Sendable {
        let requests = Locked<[(url: String, idempotencyKey: String?)]>([])
        func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
            requests.withLock { $0.append((request.url?.absoluteString ?? "", request.value(forHTTPHeaderField: "Idempotency-Key"))) }
            return .proceed
        }
        var count: Int { requests.withLock { $0.count } }
        /// The operations parked so far: a record that stays, where `isPostponed` holds only
        /// while the wait lasts (a test's polling task on a loaded machine can come seconds late).
        let parked = Locked<Set<ObjectIdentifier>>([])
        func operationDidPark(_ operation: BaseOperation, in lot: ParkingLot) {
            _ = parked.withLock { $0.insert(ObjectIdentifier(operation)) }
        }
        func wasParked(_ operation: BaseOperation) -> Bool { parked.withLock { $0.contains(ObjectIdentifier(operation)) } }
    }

    /// Runs a closure when an operation of its chain parks, where it parks (after the stages
    /// before it heard of it): what a test must do while a wait lasts happens then, not when a
    /// loaded machine runs the test's task.
    final class OnPark: NetworkMiddleware, Sendable {
        let action: @Sendable (BaseOperation, ParkingLot) -> Void
        init(_ action: @escaping @Sendable (BaseOperation, ParkingLot) -> Void) { self.action = action }
        func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision { .proceed }
        func operationDidPark(_ operation: BaseOperation, in lot: ParkingLot) { action(operation, lot) }
    }

    struct Stats: Decodable {
        let served: Int
        let refused: Int
    }

    static func stats(_ key: String) async throws -> Stats {
        let operation = DTO.get(try await TestServer.url("limited-stats/\(key)"))
        try await operation.run()
        return try JSONDecoder().decode(Stats.self, from: operation.receivedData)
    }

    /// Budget headers that say nothing is left park the next calls until the reset: one after
    /// another, every call succeeds and the server refuses none (GitHub's headers, and the
    /// IETF draft's).
    @Test(arguments: TestEngine.allCases, ["github", "ietf"])
    func budgetHeadersKeepCallsUnderTheServersLimit(_ engine: TestEngine, style: String) async throws {
        let heard = Locked<[RateLimiter.Wait.Reason]>([])
        let limiter = RateLimiter { wait in heard.withLock { $0.append(wait.reason) } }
        let session = engine.makeSession(options: .init(middleware: [limiter]))
        let key = "budget-\(UUID().uuidString)"
        // The server's window of 6 s starts with its first call and serves three: the fourth
        // call parks until the window ends. Where a loaded machine spread the first three over
        // more than the window, it began anew and nothing was spent: the calls go on (a dozen
        // at most) until one has waited.
        let url = try await TestServer.url("limited?key=\(key)&budget=3&window=6&style=\(style)")
        var sent = 0
        while sent < 12, sent < 4 || !heard.withLock({ $0.contains(.budgetExhausted) }) {
            try await DTO.get(url).on(session).run()
            sent += 1
        }
        let stats = try await Self.stats(key)
        #expect(stats.served == sent)
        #expect(stats.refused == 0)
        #expect(heard.withLock { $0 }.contains(.budgetExhausted))
    }

    /// A 429 with `Retry-After` parks the call (and the calls after it) until then; it is then
    /// sent again and succeeds.
    @Test(arguments: TestEngine.allCases)
    func aRetryAfterParksTheCallUntilThen(_ engine: TestEngine) async throws {
        let heard = Locked<[RateLimiter.Wait]>([])
        let limiter = RateLimiter { wait in heard.withLock { $0.append(wait) } }
        let sent = Sent()
        let realm = "r\(UUID().uuidString.prefix(8))"
        let url = try await TestServer.url("realm/\(realm)/flaky?key=k&fail=1&status=429&retryAfter=1")
        let secondURL = try await TestServer.url("json")
        let second = Locked<DataTaskOperation?>(nil)
        // The second call starts when the first parks (the first park heard), while the
        // server's second lasts.
        let startSecond = OnPark { _, _ in
            second.withLock { operation in
                defer { operation = nil }
                return operation
            }?.start()
        }
        let session = engine.makeSession(options: .init(middleware: [limiter, sent, startSecond]))
        let secondCall = DTO.get(secondURL).on(session)
        second.withLock { $0 = secondCall }
        let started = Date()
        let first = DTO.get(url).on(session)
        first.start()
        #expect(await eventually { sent.wasParked(first) })
        try await first.run()
        try await secondCall.run()
        #expect(sent.wasParked(secondCall), "the second call went while the first waited")
        // Both waited for the server's second; nothing was sent meanwhile.
        #expect(Date().timeIntervalSince(started) >= 0.9)
        #expect(sent.count == 3)
        #expect(heard.withLock { $0.map(\.reason) } == [.retryAfter])
        #expect(limiter.parkingLot.operations.isEmpty)
    }

    /// A budget of the service's own: 12 calls at once through a bucket of 4 per 0.2 s go
    /// in the order they started, and the last waits for the budget.
    @Test(arguments: TestEngine.allCases)
    func aBucketSpacesCallsInTheirOrder(_ engine: TestEngine) async throws {
        let limiter = RateLimiter(configuration: .init(requestsPerInterval: 4, interval: 0.2))
        let sent = Sent()
        let session = engine.makeSession(options: .init(middleware: [limiter, sent]))
        let base = try await TestServer.url("json")
        let urls = (0..<12).map { base.absoluteString + "?n=\($0)" }
        let started = Date()
        let operations = urls.map { DTO.get($0).on(session) }
        for operation in operations { operation.start() }
        for operation in operations { try await operation.run() }
        #expect(Date().timeIntervalSince(started) >= 0.35)
        #expect(sent.requests.withLock { $0.map(\.url) } == urls)
    }

    /// A POST carries one `Idempotency-Key`, the same on its retry.
    @Test func aPostKeepsItsIdempotencyKeyAcrossRetries() async throws {
        struct RetryOnce: NetworkMiddleware {
            let judged = Locked(0)
            func judge(_ outcome: AttemptOutcome, verdict: inout Verdict, context: MiddlewareContext) throws {
                if judged.withLock({ count in
                    count += 1
                    return count
                }) == 1 {
                    verdict = .retry(after: 0.01)
                }
            }
        }
        let limiter = RateLimiter(configuration: .init(sendsIdempotencyKeys: true))
        let sent = Sent()
        let session = TestEngine.nio.makeSession(options: .init(middleware: [limiter, sent, RetryOnce()]))
        try await DTO.post(try await TestServer.url("echo"), parameters: ["a": 1]).on(session).run()
        try await DTO.get(try await TestServer.url("echo")).on(session).run()
        let keys = sent.requests.withLock { $0.map(\.idempotencyKey) }
        #expect(keys.count == 3)
        #expect(keys[0] != nil && keys[0] == keys[1])
        #expect(keys[2] == nil)
    }

    /// A `Retry-After` far in the future is cut to `maximumWait`; one in the past or malformed
    /// sets no wait.
    @Test func outlandishWaitsAreBounded() async throws {
        let limiter = RateLimiter(configuration: .init(maximumWait: 2))
        let sent = Sent()
        let session = TestEngine.nio.makeSession(options: .init(middleware: [limiter, sent]))
        let realm = "r\(UUID().uuidString.prefix(8))"
        let far = DTO.get(try await TestServer.url("realm/\(realm)/flaky?key=far&fail=1&status=429&retryAfter=99999999")).on(session)
        let started = Date()
        far.start()
        #expect(await eventually { sent.wasParked(far) })
        #expect(limiter.secondsBlocked <= 2)
        try await far.run()
        #expect(Date().timeIntervalSince(started) < 60, "the wait was not cut to the limiter's two seconds")
        let malformed = DTO.get(try await TestServer.url("realm/\(realm)/flaky?key=bad&fail=1&status=429&retryAfter=soon")).on(session)
        _ = try? await malformed.run()
        #expect(malformed.statusCode == 429)
        #expect(limiter.secondsBlocked == 0)
    }

    /// The moment between the limiter's decision to park a call and the call's arrival in the
    /// lot, played out in order: a call is taken out of the lot before its replay comes (the
    /// replay takes the call parked before it, a witness, and not this one) and arrives after,
    /// as the operation adds itself and tells its stages. It is replayed all the same, and ends.
    @Test(arguments: TestEngine.allCases)
    func aCallThatReachesTheLotAfterItsReplayIsReplayed(_ engine: TestEngine) async throws {
        // A token every 3 s. What must happen before the next one happens where the calls end
        // and park: the first call's end starts the witness, the witness's park starts the late
        // call, whose park takes it out of the lot again.
        let limiter = RateLimiter(configuration: .init(requestsPerInterval: 1, interval: 3, burst: 1))
        let url = try await TestServer.url("json")
        let lateBox = Locked<DataTaskOperation?>(nil)
        let startsLate = Locked(true)
        let takenOut = Locked(false)
        let sequence = OnPark { operation, lot in
            guard let call = lateBox.withLock({ $0 }) else { return }
            if operation === call {
                takenOut.withLock { $0 = lot.take(call) }
            } else if startsLate.withLock({ starts in
                defer { starts = false }
                return starts
            }) {
                call.start()
            }
        }
        let session = engine.makeSession(options: .init(middleware: [limiter, sequence]))
        let witness = DTO.get(url).on(session)
        let lateCall = DTO.get(url).on(session)
        lateBox.withLock { $0 = lateCall }
        // The first call takes the token; the witness starts as it ends, long before the next.
        try await DTO.get(url).on(session).onCompletion { _ in witness.start() }.run()
        #expect(await eventually { takenOut.withLock { $0 } }, "the late call never parked and was taken out")
        // The replay scheduled for the next token comes and takes the witness only.
        #expect(await eventually(within: 20) { witness.isFinishedOrCancelled })
        let late = lateCall
        #expect(late.isPostponed)
        limiter.parkingLot.add(late, ticket: try #require(late.parkingTicket))
        limiter.operationDidPark(late, in: limiter.parkingLot)
        #expect(await eventually(within: 20) { late.isFinishedOrCancelled }, "the call stayed parked with no replay to come")
        #expect(late.state == .successFinished)
        if !late.isFinishedOrCancelled { late.cancel() }
    }
}

/// Hundreds of calls through a budget that replays every millisecond: a load test, alone in the
/// process (side by side it would reorder the budget tests' calls).
@Suite(.processGate(.exclusive, minutes: 2))
struct RateLimiterReplayTests {
    /// A call parks outside the limiter's lock, a moment after the limiter decided it waits: a
    /// replay that comes in that moment must not leave it parked with no replay to come. A
    /// budget of a call per millisecond replays every millisecond while 400 calls, started from
    /// several threads at once, park; every one ends, and none was refused. (The moment is too
    /// short for this load to hit on demand: the test above plays it out in order.)
    @Test(arguments: TestEngine.allCases)
    func aReplayWhileACallIsParkingDoesNotStrandIt(_ engine: TestEngine) async throws {
        let limiter = RateLimiter(configuration: .init(requestsPerInterval: 1_000, interval: 1, burst: 1))
        let session = engine.makeSession(options: .init(middleware: [limiter]))
        let url = try await TestServer.url("json")
        let operations = (0..<400).map { _ in DTO.get(url).on(session) }
        try await offCooperativePool {
            DispatchQueue.concurrentPerform(iterations: 8) { lane in
                for index in stride(from: lane, to: operations.count, by: 8) { operations[index].start() }
            }
        }
        let ended = await eventually(within: 60) { operations.allSatisfy(\.isFinishedOrCancelled) }
        let stranded = operations.filter { !$0.isFinishedOrCancelled }
        #expect(
            ended,
            "\(stranded.count) calls did not end (\(limiter.parkingLot.count) in the limiter's lot): \(stranded.prefix(3).map { "\($0.state), response \($0.response?.statusCode ?? 0), \($0.progress.bytesReceived) bytes" })"
        )
        #expect(operations.allSatisfy { $0.state == .successFinished })
        for operation in stranded { operation.cancel() }
        try await session.shutdown()
    }
}
