import Foundation

extension BaseOperation {
    /// Whether the end of this operation's transfer may be delivered on the thread it arrived
    /// on (an event loop, URLSession's delegate queue) instead of being handed to a queue of its
    /// own: true while nothing that may block listens — no completion or state closure, no
    /// delegate. Those waiting in `run()`, `finished()` or `syncStart()` only resume a
    /// continuation or signal a semaphore, so an awaited operation ends with no dispatch hop,
    /// as AsyncHTTPClient's own async API does. Read when the transfer ends.
    var mayCompleteInPlace: Bool {
        withLock {
            storage.listeners.completionHandlers.isEmpty && storage.listeners.stateHandlers.isEmpty && lockedDelegate == nil
        }
    }
}
