import Foundation
import NIOCore
import NIOPosix
import TestSupport
import Testing

@testable import NetOps
@testable import NetOpsNIO

/// Which loop an HTTP/1.1 request started off the loops prefers (`LoopBalance`): the origin's
/// loop with the fewest requests in flight, so that one request at a time stays on its one
/// connection's loop and a load spreads evenly; every claim is given back when its request ends.
struct LoopBalanceTests {
    private static let origin = Origin(URL(string: "http://api.example.com/")!)!

    @Test func theLeastBusyLoopIsClaimedTiesGoingToTheFirst() {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 3)
        defer { try? group.syncShutdownGracefully() }
        let balance = LoopBalance(group: group)
        let other = Origin(URL(string: "http://other.example.com/")!)!

        let first = balance.claim(Self.origin)
        #expect(first.index == 0)
        let second = balance.claim(Self.origin)
        let third = balance.claim(Self.origin)
        #expect(second.index == 1 && third.index == 2)
        #expect(balance.claim(other).index == 0, "each origin is counted apart")
        balance.release(second)
        #expect(balance.claim(Self.origin).index == 1, "the loop given back is the least busy again")
        #expect(balance.counts(Self.origin) == [1, 1, 1])

        // One request at a time always goes to the same loop.
        for claim in [first, third] { balance.release(claim) }
        #expect(balance.counts(Self.origin) == [0, 1, 0])
        for _ in 0..<5 {
            let claim = balance.claim(Self.origin)
            #expect(claim.index == 0)
            balance.release(claim)
        }
    }

    @Test func originsWithNothingInFlightAreDroppedPastABound() {
        let balance = LoopBalance()
        let busy = balance.claim(Self.origin)
        for host in 0..<200 {
            let claim = balance.claim(Origin(URL(string: "http://host\(host).example.com/")!)!)
            balance.release(claim)
        }
        #expect(balance.originCount <= 65, "at most 64 idle origins kept besides the busy one")
        #expect(balance.counts(Self.origin).reduce(0, +) == 1, "an origin with a request in flight is kept")
        balance.release(busy)
    }

    @Test func aRequestStartedOnALoopClaimsThatLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let balance = LoopBalance(group: group)
        let loops = Array(group.makeIterator())
        let claim = try await loops[1].submit { balance.claim(Self.origin) }.get()
        #expect(claim.index == 1)
        #expect(ObjectIdentifier(claim.loop) == ObjectIdentifier(loops[1]))
        balance.release(claim)
        #expect(balance.counts(Self.origin) == [0, 0])
        // A release too many does not go below nothing.
        balance.release(claim)
        #expect(balance.counts(Self.origin) == [0, 0])
        try await group.shutdownGracefully()
    }

    @Test func sequentialAwaitedRequestsEndOnOneLoopAndGiveTheirClaimsBack() async throws {
        var configuration = NIOEngineConfiguration(concurrency: 8)
        configuration.completionDelivery = .eventLoop
        let session = NetworkSession.nio(configuration: configuration)
        let engine = try #require(session.engine as? NIOEngine)
        let url = try await TestServer.url("json")
        let origin = try #require(Origin(url))
        let loops = Locked<[ObjectIdentifier]>([])
        for _ in 0..<20 {
            let operation = DTO.get(url)
            operation.privateSession = session
            operation.onCompletion { _ in
                if let loop = MultiThreadedEventLoopGroup.currentEventLoop { loops.withLock { $0.append(ObjectIdentifier(loop)) } }
            }
            try await operation.run()
            #expect(operation.statusCode == 200)
        }
        // With `.indifferent`, requests started on the cooperative pool took the loops in turn
        // and half of them ended on a loop their connection was not on.
        #expect(loops.withLock { Set($0).count } == 1, "every request ended on its one connection's loop")
        #expect(loops.withLock { $0.count } == 20)
        #expect(engine.loopBalance.counts(origin).allSatisfy { $0 == 0 })
        try await session.shutdownNIOEngine()
    }

    @Test func concurrentRequestsSpreadAndFailedOnesGiveTheirClaimsBackToo() async throws {
        var configuration = NIOEngineConfiguration(concurrency: 8)
        configuration.retriesConnectionEstablishment = false
        let session = NetworkSession.nio(configuration: configuration)
        let engine = try #require(session.engine as? NIOEngine)
        // Answered after 3 s: all eight are in flight together even when a loaded machine
        // starts them (or runs this task) a second or two late.
        let url = try await TestServer.url("delay?seconds=3")
        let origin = try #require(Origin(url))
        let operations = (0..<8).map { _ in
            let operation = DTO.get(url)
            operation.privateSession = session
            return operation
        }
        for operation in operations { operation.start() }
        #expect(await eventually(within: 3) { engine.loopBalance.counts(origin).reduce(0, +) == 8 })
        let loopCount = engine.loopBalance.counts(origin).count
        let counts = engine.loopBalance.counts(origin)
        #expect(counts.reduce(0, +) == 8)
        #expect(counts.max()! - counts.min()! <= 1, "spread evenly: \(counts) over \(loopCount) loops")
        for operation in operations { await operation.finished() }
        #expect(operations.allSatisfy { $0.statusCode == 200 })
        #expect(engine.loopBalance.counts(origin).allSatisfy { $0 == 0 })

        // Nothing listens on port 1: the transfer fails, and its claim is given back.
        let refused = DTO.get(URL(string: "http://127.0.0.1:1/json")!)
        refused.privateSession = session
        await #expect(throws: NetOpsError.self) { try await refused.run() }
        let refusedOrigin = try #require(Origin(URL(string: "http://127.0.0.1:1/")!))
        #expect(engine.loopBalance.counts(refusedOrigin).allSatisfy { $0 == 0 })
        try await session.shutdownNIOEngine()
    }
}
