import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NetOps

/// Which origins answered over HTTP/2, so that their requests run on one event loop each.
///
/// An HTTP/2 connection lives on one event loop and carries every request to its origin. A
/// request started off the loops (an awaited operation, a completion on a dispatch queue) gets
/// its delegate on whichever loop AsyncHTTPClient picks (`.indifferent`), so on a machine with
/// N loops (N−1)/N of them had every callback — head, body parts, end — hop from the
/// connection's loop to the delegate's and back, a task and a thread wake-up each. Once an
/// origin is known to speak HTTP/2, its requests ask for `.delegateAndChannel(on:)` the loop
/// they start on (the current one, or the next in turn): AsyncHTTPClient then keeps one HTTP/2
/// connection per loop, at most one per core, and a request's callbacks never leave its loop.
///
/// An origin is unknown until it answers: ALPN may still choose HTTP/1.1, and pinning HTTP/1.1
/// requests to a loop would make AsyncHTTPClient open connections for each loop past the
/// pool's limit. An answer over HTTP/1.x to a pinned request unpins the origin again. At most
/// `maximumOrigins` are known (a service that follows redirects to thousands of hosts holds a
/// bounded set): past it, one known origin is forgotten for each new one, and its next request
/// runs unpinned until it answers over HTTP/2 again.
final class HTTP2Pinning: Sendable {
    private let known = NIOLockedValueBox<Set<Origin>>([])
    /// The most origins known at once.
    let maximumOrigins: Int

    init(maximumOrigins: Int = 1_024) {
        self.maximumOrigins = max(1, maximumOrigins)
    }

    /// The origins known to speak HTTP/2 now.
    var count: Int { known.withLockedValue { $0.count } }

    /// Whether requests to `origin` run on one loop each.
    func pins(_ origin: Origin) -> Bool {
        known.withLockedValue { $0.contains(origin) }
    }

    /// Records what protocol `origin` answered with, when it is not what the request assumed.
    func record(_ origin: Origin, answeredOverHTTP2: Bool) {
        known.withLockedValue { origins in
            if answeredOverHTTP2 {
                if origins.count >= maximumOrigins, !origins.contains(origin), let any = origins.first { origins.remove(any) }
                origins.insert(origin)
            } else {
                origins.remove(origin)
            }
        }
    }

    /// The preference of a request to an origin that `pinned` says speaks HTTP/2 or not.
    static func preference(pinned: Bool) -> HTTPClient.EventLoopPreference {
        pinned ? .delegateAndChannel(on: MultiThreadedEventLoopGroup.singleton.any()) : .indifferent
    }
}

/// What a transfer's delegate reports about the protocol its origin answered with.
struct HTTP2Watch: Sendable {
    let pinning: HTTP2Pinning
    let origin: Origin
    /// Whether the request was started as one to an HTTP/2 origin.
    let pinned: Bool

    /// Tells the pinning when the answer's protocol differs from what the request assumed.
    func observe(_ version: HTTPVersion) {
        let overHTTP2 = version.major >= 2
        if overHTTP2 != pinned { pinning.record(origin, answeredOverHTTP2: overHTTP2) }
    }
}
