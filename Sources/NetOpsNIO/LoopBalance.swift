import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NetOps

/// Which event loop an HTTP/1.1 request started off the loops asks AsyncHTTPClient for: the
/// loop of the origin with the fewest of its requests in flight.
///
/// An HTTP/1.1 connection lives on one event loop, and a request's delegate on the loop its
/// preference names. When the two differ, every callback (head, body parts, end) is a task
/// sent from the connection's loop to the delegate's and back, with a thread wake-up each. A
/// request started on a loop asks for that loop (`.indifferent` does): the connection it used
/// last is there. An awaited operation starts its request on the cooperative pool, where
/// `.indifferent` takes the loops in turn; against one keep-alive connection half of the
/// requests hopped (strace: four `epoll_wait`s and four `write`s per request instead of two).
///
/// AsyncHTTPClient gives a request an idle connection on its preferred loop when there is one,
/// else any idle connection, and opens new connections on the preferred loop. So the origin's
/// loop with the fewest requests in flight is where an idle connection most likely waits: one
/// request at a time always goes to the same loop and its one connection; under load the
/// requests, and the connections opened for them, spread over the loops evenly. Unlike a
/// required loop (`.delegateAndChannel(on:)`, which `HTTP2Pinning` uses for HTTP/2), a
/// preference never makes the pool open connections past its limit.
final class LoopBalance: Sendable {
    /// The group's loops, in a fixed order (ties go to the first).
    private let loops: [any EventLoop]
    /// Requests in flight per origin, one count per loop. An origin with none keeps its counts
    /// (a request at a time would make and drop them each time) until more than
    /// `idleOriginsKept` origins are known; then those with none are dropped.
    private let inFlight = NIOLockedValueBox<[Origin: [Int]]>([:])
    private static let idleOriginsKept = 64

    init(group: MultiThreadedEventLoopGroup = .singleton) {
        loops = Array(group.makeIterator())
    }

    /// A claim on one loop for one request, given back when the request ends.
    struct Claim: Sendable {
        let origin: Origin
        let index: Int
        let loop: any EventLoop
    }

    /// Claims the loop a request to `origin` should prefer: the current loop when the request
    /// starts on one, else the origin's loop with the fewest requests in flight.
    func claim(_ origin: Origin) -> Claim {
        let current = MultiThreadedEventLoopGroup.currentEventLoop
        let index = inFlight.withLockedValue { counts -> Int in
            if counts[origin] == nil {
                if counts.count >= Self.idleOriginsKept { counts = counts.filter { $0.value.contains { $0 > 0 } } }
                counts[origin] = Array(repeating: 0, count: loops.count)
            }
            // Counted in place: the counts array is not copied out and back.
            return counts[origin, default: []].withUnsafeMutableBufferPointer { loopCounts in
                let chosen = current.flatMap { loop in loops.firstIndex { $0 === loop } } ?? Self.leastBusy(loopCounts)
                loopCounts[chosen] += 1
                return chosen
            }
        }
        return Claim(origin: origin, index: index, loop: loops[index])
    }

    /// Gives back a claim once its request has ended.
    func release(_ claim: Claim) {
        inFlight.withLockedValue { counts in
            guard counts[claim.origin] != nil else { return }
            counts[claim.origin, default: []].withUnsafeMutableBufferPointer { loopCounts in
                loopCounts[claim.index] = max(0, loopCounts[claim.index] - 1)
            }
        }
    }

    /// Requests in flight to `origin` on each loop (for tests).
    func counts(_ origin: Origin) -> [Int] {
        inFlight.withLockedValue { $0[origin] ?? Array(repeating: 0, count: loops.count) }
    }

    /// The origins whose counts are kept (for tests).
    var originCount: Int {
        inFlight.withLockedValue { $0.count }
    }

    private static func leastBusy(_ counts: UnsafeMutableBufferPointer<Int>) -> Int {
        var best = 0
        for index in counts.indices where counts[index] < counts[best] { best = index }
        return best
    }
}
