import Foundation
import TestSupport
import Testing

@testable import NetOps
@testable import NetOpsHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A rate limiter's concurrency limit: never more requests in flight than allowed, the calls over
/// it parked and handed a slot in the order they came, and every way a request ends — answered,
/// cancelled, suspended, parked elsewhere — gives its slot back.
@Suite(.timeLimit(.minutes(2)))
struct ConcurrencyLimitTests {
    struct Stats: Decodable {
        let served: Int
        let maxInFlight: Int
    }

    struct Answer: Decodable {
        let served: Int
    }

    static func stats(_ key: String) async throws -> Stats {
        let operation = DTO.get(try await TestServer.url("counted-stats/\(key)"))
        try await operation.run()
        return try JSONDecoder().decode(Stats.self, from: operation.receivedData)
    }

    @Test(arguments: TestEngine.allCases) func neverMoreInFlightThanTheLimit(_ engine: TestEngine) async throws {
        let limiter = RateLimiter(configuration: .init(maximumConcurrentRequests: 3))
        let key = UUID().uuidString
        // Each answer takes 1 s: long enough that three requests overlap at the server even when
        // a loaded parallel run delays their starts (at 0.3 s one run saw only two at once).
        let url = try await TestServer.url("counted/\(key)?delay=1")
        let operations = (0..<12).map { _ in DTO.get(url).use(limiter).on(engine) }
        for operation in operations { operation.start() }
        for operation in operations { await operation.finished() }
        #expect(operations.allSatisfy { $0.state == .successFinished })
        let stats = try await Self.stats(key)
        #expect(stats.served == 12)
        #expect(stats.maxInFlight == 3)
        #expect(limiter.requestsInFlight == 0)
        #expect(limiter.parkingLot.isEmpty)
    }

    @Test func slotsAreHandedOnInTheOrderTheCallsCame() async throws {
        let limiter = RateLimiter(configuration: .init(maximumConcurrentRequests: 1))
        let key = UUID().uuidString
        // The first answer takes 3 s: the calls in flight and parked are counted while it holds
        // the one slot, however late a loaded machine runs this task.
        let first = try await TestServer.url("counted/\(key)?delay=3")
        let url = try await TestServer.url("counted/\(key)")
        var operations: [DataTaskOperation] = []
        for index in 0..<6 {
            let operation = DTO.get(index == 0 ? first : url).use(limiter).on(.nio)
            operation.start()
            operations.append(operation)
            // Each parked (or sent) before the next comes.
            let count = operations.count
            #expect(await eventually { limiter.requestsInFlight + limiter.parkingLot.count == count })
        }
        for operation in operations { await operation.finished() }
        let served = try operations.map { try JSONDecoder().decode(Answer.self, from: $0.receivedData).served }
        #expect(served == Array(1...6))
    }

    @Test(arguments: TestEngine.allCases) func cancellingAHolderOrAWaiterFreesItsPlace(_ engine: TestEngine) async throws {
        let limiter = RateLimiter(configuration: .init(maximumConcurrentRequests: 1))
        let key = UUID().uuidString
        let slow = DTO.get(try await TestServer.url("counted/\(key)?delay=30")).use(limiter).on(engine)
        slow.start()
        #expect(await eventually { limiter.requestsInFlight == 1 })
        let url = try await TestServer.url("counted/\(key)")
        let cancelledWhileParked = DTO.get(url).use(limiter).on(engine)
        let waiter = DTO.get(url).use(limiter).on(engine)
        cancelledWhileParked.start()
        waiter.start()
        #expect(await eventually { limiter.parkingLot.count == 2 })
        cancelledWhileParked.cancel()
        slow.cancel()
        await waiter.finished()
        await slow.finished()
        await cancelledWhileParked.finished()
        #expect(waiter.state == .successFinished)
        #expect(slow.state == .cancelled && cancelledWhileParked.state == .cancelled)
        #expect(limiter.requestsInFlight == 0)
        // The waiter reached the server, and the slow request may have (it was cancelled, maybe
        // before the server read it); the one cancelled while parked never sent anything.
        #expect((1...2).contains(try await Self.stats(key).served))
    }

    @Test func aSuspendedHolderGivesItsSlotBackAndTakesOneAgainOnResume() async throws {
        let limiter = RateLimiter(configuration: .init(maximumConcurrentRequests: 1))
        let key = UUID().uuidString
        let first = DTO.get(try await TestServer.url("counted/\(key)?delay=2")).use(limiter).on(.nio)
        first.start()
        #expect(await eventually { limiter.requestsInFlight == 1 })
        let second = DTO.get(try await TestServer.url("counted/\(key)")).use(limiter).on(.nio)
        second.start()
        #expect(await eventually { limiter.parkingLot.count == 1 })
        #expect(first.suspend())
        await second.finished()
        #expect(second.state == .successFinished)
        #expect(first.resume())
        await first.finished()
        #expect(first.state == .successFinished)
        #expect(limiter.requestsInFlight == 0)
    }

    @Test func withABudgetTooEveryCallEnds() async throws {
        let limiter = RateLimiter(configuration: .init(requestsPerInterval: 20, interval: 1, burst: 2, maximumConcurrentRequests: 2))
        let key = UUID().uuidString
        let url = try await TestServer.url("counted/\(key)?delay=0.1")
        let operations = (0..<15).map { _ in DTO.get(url).use(limiter).on(.nio) }
        for operation in operations { operation.start() }
        for operation in operations { await operation.finished() }
        #expect(operations.allSatisfy { $0.state == .successFinished })
        let stats = try await Self.stats(key)
        #expect(stats.served == 15)
        #expect(stats.maxInFlight <= 2)
        #expect(limiter.requestsInFlight == 0)
    }
}
