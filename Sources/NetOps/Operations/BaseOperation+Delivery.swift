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

    /// The task awaiting this operation in `run()`, when its transfer's end may be carried out
    /// there: its only completions are ones that never block (`onEnd(_:)`), and no state closure
    /// or delegate listens. Read when the transfer ends.
    var endRelayIfNobodyBlocks: EndRelay? {
        withLock {
            guard let relay = storage.endRelay, storage.listeners.completionHandlers.count == storage.listeners.nonBlockingCompletions,
                storage.listeners.stateHandlers.isEmpty, lockedDelegate == nil
            else { return nil }
            return relay
        }
    }

    /// Starts the operation and waits for it, carrying out the ends of its transfers that come
    /// through its relay (`EndRelay`) on this task; returns once it is final.
    func startAndRelayEnds() async {
        // Nobody listens who could need a relay: the end runs where it arrives (no relay made).
        if mayCompleteInPlace {
            await startAndAwait()
            return
        }
        let relay = EndRelay()
        withLock { storage.endRelay = relay }
        await withTaskCancellationHandler {
            whenFinal { relay.finish() }
            start()
            while case let .work(work) = await relay.next() { work() }
        } onCancel: {
            cancel()
        }
        // Ends accepted but not carried out yet (the operation went final another way, a
        // cancellation, while one was on its way) still run: they release what the transfer held.
        for work in relay.close() { work() }
        withLock { if storage.endRelay === relay { storage.endRelay = nil } }
    }
}
