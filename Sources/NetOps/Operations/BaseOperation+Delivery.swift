import Foundation

extension BaseOperation {
    /// Whether the end of this operation's transfer may be delivered on the thread it arrived
    /// on (an event loop, URLSession's delegate queue) instead of being handed to a queue of its
    /// own: true while nothing that may block listens — no completion or state closure, no
    /// delegate. Those waiting in `finished()` or `syncStart()` only resume a continuation or
    /// signal a semaphore, so such an operation ends with no dispatch hop. (`run()` has the end
    /// carried out on its own task instead: `startAndRelayEnds()`.) Read when the transfer ends.
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
    ///
    /// Every awaited operation has a relay, even one that nothing else listens to: the end's own
    /// work (the chain's verdict, the machine, the notifications) then runs on this task, and the
    /// thread the transfer ended on only resumes it. That thread is an event loop every request
    /// of its connections shares, or a session's one delegate queue; on two cores at c=8 the
    /// loops did 27 % more work per request than for AsyncHTTPClient's async API, and bounded
    /// the throughput (Docs/engines.md, "Where an awaited request's work runs").
    func startAndRelayEnds() async {
        let relay = EndRelay()
        withLock { storage.endRelay = relay }
        await withTaskCancellationHandler {
            whenFinal { relay.finish() }
            start()
            var next = await relay.next()
            while case let .work(work) = next {
                work()
                // An end usually makes the operation final: then this does not suspend.
                if let now = relay.take() { next = now } else { next = await relay.next() }
            }
        } onCancel: {
            cancel()
        }
        // Ends accepted but not carried out yet (the operation went final another way, a
        // cancellation, while one was on its way) still run: they release what the transfer held.
        for work in relay.close() { work() }
        withLock { if storage.endRelay === relay { storage.endRelay = nil } }
    }
}
