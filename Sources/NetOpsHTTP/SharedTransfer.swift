import Foundation
import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One network transfer whose events reach every operation that joined it (`RequestCoalescer`).
///
/// Each operation joins with its own events handler and gets a handle of its own: cancelling it
/// ends that operation's part only, and the network transfer stops when the last part is gone.
/// An operation that joins late first receives what arrived before it (the response head and
/// the body so far, kept while they stay under `maximumBacklogBytes`; past that, nobody else
/// joins). Every part's events come in the engine's order and never overlap: each part has a
/// mailbox, drained outside the lock by whichever thread finds it idle.
final class SharedTransfer: EngineEvents, Sendable {
    /// One event of the transfer, as the engine reported it.
    enum Event: Sendable {
        case head(ResponseHead)
        case data(Data)
        case sent(Int64, expected: Int64?)
        case complete(TransferFailure?)
    }

    /// The events of one part not delivered yet.
    private struct Mailbox {
        let events: any TransferEvents
        var pending: [Event]
        /// A thread is delivering this part's events: others only append.
        var draining: Bool
        /// The part received (or was given) its completion; it hears nothing more.
        var ended = false
    }

    private struct State {
        var mailboxes: [UInt64: Mailbox] = [:]
        var nextPart: UInt64 = 0
        /// Parts still listening (not cancelled, not ended).
        var listening = 0
        /// What arrived so far, for parts that join late; nil once over the bound.
        var backlog: [Event]? = []
        var backlogBytes = 0
        var handle: (any TransferHandle)?
        /// Every part left before the engine returned the handle: cancel it when it comes.
        var cancelWhenStarted = false
        /// The engine reported the end, or every part left.
        var over = false
    }

    let redirectRules: RedirectRules
    let transport: TransportChoice
    let bodyGoesToFile: Bool
    private let maximumBacklogBytes: Int
    private let state = Locked(State())
    /// Called once, outside the lock, when nobody may join any more.
    private let onClosed: @Sendable (SharedTransfer) -> Void

    init(
        redirectRules: RedirectRules, transport: TransportChoice, bodyGoesToFile: Bool, maximumBacklogBytes: Int,
        onClosed: @escaping @Sendable (SharedTransfer) -> Void
    ) {
        self.redirectRules = redirectRules
        self.transport = transport
        self.bodyGoesToFile = bodyGoesToFile
        self.maximumBacklogBytes = maximumBacklogBytes
        self.onClosed = onClosed
    }

    /// Adds a part that receives the transfer's events through `events` (`beforeFirstEvent`
    /// runs first, once the part is in); nil when the transfer can no longer be joined (it
    /// ended, every part left, or its backlog outgrew the bound).
    func join(_ events: any TransferEvents, beforeFirstEvent: () -> Void = {}) -> Part? {
        let id = state.withLock { state -> UInt64? in
            guard !state.over, let backlog = state.backlog else { return nil }
            state.nextPart += 1
            state.mailboxes[state.nextPart] = Mailbox(events: events, pending: backlog, draining: true)
            state.listening += 1
            return state.nextPart
        }
        guard let id else { return nil }
        beforeFirstEvent()
        drain(id)
        return Part(transfer: self, id: id)
    }

    /// The engine's handle of the network transfer; cancelled at once if every part left already.
    func started(_ handle: any TransferHandle) {
        let cancel = state.withLock { state -> Bool in
            if state.cancelWhenStarted { return true }
            state.handle = handle
            return false
        }
        if cancel { handle.cancel() }
    }

    /// Ends `part`'s share with `.cancelled`; the last part to leave stops the network transfer.
    fileprivate func leave(_ part: Part) {
        let (stop, closes) = state.withLock { state -> (stop: (any TransferHandle)?, closes: Bool) in
            let id = part.id
            guard var mailbox = state.mailboxes[id], !mailbox.ended else { return (nil, false) }
            mailbox.ended = true
            mailbox.pending.append(.complete(.cancelled))
            state.mailboxes[id] = mailbox
            state.listening -= 1
            guard state.listening == 0, !state.over else { return (nil, false) }
            state.over = true
            state.backlog = nil
            if state.handle == nil { state.cancelWhenStarted = true }
            defer { state.handle = nil }
            return (state.handle, true)
        }
        stop?.cancel()
        if closes { onClosed(self) }
        drain(part.id)
    }

    // MARK: TransferEvents

    func transferDidReceive(head: ResponseHead) {
        record(.head(head), bytes: 0)
    }

    func transferDidReceive(data: Data) {
        record(.data(data), bytes: data.count)
    }

    func transferDidSend(sent: Int64, expected: Int64?) {
        record(.sent(sent, expected: expected), bytes: 0)
    }

    func transferDidComplete(failure: TransferFailure?) {
        record(.complete(failure), bytes: 0)
    }

    /// True when every part may hear the end on the engine's thread.
    var completesInPlace: Bool {
        let listeners = state.withLock { state in state.mailboxes.values.filter { !$0.ended }.map(\.events) }
        return listeners.allSatisfy { ($0 as? any EngineEvents)?.completesInPlace ?? false }
    }

    // MARK: Delivery

    /// Appends `event` to every listening part's mailbox (and to the backlog), then delivers.
    private func record(_ event: Event, bytes: Int) {
        let ends: Bool
        if case .complete = event { ends = true } else { ends = false }
        let (idle, closes) = state.withLock { state -> (idle: [UInt64], closes: Bool) in
            var closes = false
            if ends {
                closes = !state.over
                state.over = true
                state.backlog = nil
                state.handle = nil
            } else if state.backlog != nil {
                state.backlogBytes += bytes
                if case .head = event {
                    // A head that comes again (an engine's own retry) starts the body over.
                    state.backlog = []
                    state.backlogBytes = 0
                }
                if state.backlogBytes > maximumBacklogBytes {
                    state.backlog = nil
                    closes = !state.over
                } else {
                    state.backlog?.append(event)
                }
            }
            var idle: [UInt64] = []
            for (id, var mailbox) in state.mailboxes where !mailbox.ended {
                mailbox.pending.append(event)
                if ends {
                    mailbox.ended = true
                    state.listening -= 1
                }
                if !mailbox.draining {
                    mailbox.draining = true
                    idle.append(id)
                }
                state.mailboxes[id] = mailbox
            }
            return (idle, closes)
        }
        if closes { onClosed(self) }
        for id in idle { drain(id) }
    }

    /// Delivers `id`'s pending events in order until its mailbox is empty; a mailbox whose part
    /// ended is dropped once delivered.
    private func drain(_ id: UInt64) {
        while true {
            let batch = state.withLock { state -> (events: any TransferEvents, pending: [Event])? in
                guard var mailbox = state.mailboxes[id] else { return nil }
                guard !mailbox.pending.isEmpty else {
                    if mailbox.ended {
                        state.mailboxes[id] = nil
                    } else {
                        mailbox.draining = false
                        state.mailboxes[id] = mailbox
                    }
                    return nil
                }
                let pending = mailbox.pending
                mailbox.pending = []
                state.mailboxes[id] = mailbox
                return (mailbox.events, pending)
            }
            guard let batch else { return }
            for event in batch.pending {
                switch event {
                case let .head(head): batch.events.transferDidReceive(head: head)
                case let .data(data): batch.events.transferDidReceive(data: data)
                case let .sent(sent, expected): batch.events.transferDidSend(sent: sent, expected: expected)
                case let .complete(failure): batch.events.transferDidComplete(failure: failure)
                }
            }
        }
    }

    /// One operation's share of a `SharedTransfer`: its handle.
    final class Part: TransferHandle {
        private let transfer: SharedTransfer
        fileprivate let id: UInt64

        fileprivate init(transfer: SharedTransfer, id: UInt64) {
            self.transfer = transfer
            self.id = id
        }

        func cancel() {
            transfer.leave(self)
        }
    }
}
