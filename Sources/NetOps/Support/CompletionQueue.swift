import Dispatch

/// Where the end of a transfer is handed when it must leave the thread it arrived on: a new serial
/// queue per hand-off, never `DispatchQueue.global()`.
///
/// Completion handlers may block (`syncStart()`, waiting for another operation). On Linux,
/// libdispatch's global queues run on a pool sized to the cores and grown only by a monitor that
/// notices blocked threads about once a second: with a few handlers blocked, every later item on
/// those queues waited seconds (measured: 5.8 s behind 8 blocked items on 2 cores), and with it
/// every operation's end and every deadline. A queue made with `DispatchQueue(label:)` targets
/// the overcommit pool, which finds a thread for each item at once, and reuses idle ones.
package enum CompletionQueue {
    /// Runs `work` soon on a thread of its own, whatever other hand-offs are blocked.
    package static func async(_ work: @escaping @Sendable () -> Void) {
        DispatchQueue(label: "NetOps.completion").async(execute: work)
    }

    /// Delivers the end of a transfer that arrived on a thread nobody may block (an event loop,
    /// URLSession's delegate queue): to the task awaiting the operation (`EndRelay`) when there
    /// is one and nothing that may block listens, so that the thread every transfer shares only
    /// resumes it; else right there when nothing that may block listens (`completesInPlace`);
    /// otherwise on a queue of its own.
    package static func deliverEnd(of events: any EngineEvents, failure: TransferFailure?) {
        if let relay = events.endRelay, relay.deliver({ events.transferDidComplete(failure: failure) }) { return }
        if events.completesInPlace {
            events.transferDidComplete(failure: failure)
            return
        }
        async { events.transferDidComplete(failure: failure) }
    }

    /// The queue the timers of deadlines and retry waits fire on: serial and overcommit, so a
    /// deadline is never late because completion handlers block the global pool. A timer's
    /// handler only hands its work on with `async(_:)`: that work may end operations, whose
    /// completion handlers may block.
    package static let timers = DispatchQueue(label: "NetOps.timers")
}
