import Foundation

/// The chunks of a streamed response body between the transfer that writes them and the one
/// reader that takes them.
///
/// The transfer side (`StreamSink`, under its operation's lock) pushes chunks and ends the
/// stream; the reader side (`ResponseBodyStream`) takes them. Whatever has to be called as a
/// result — a waiting reader resumed, the engine told it may read on, the operation told its
/// reader moved or left — is taken out under this buffer's lock and called after it.
///
/// Bounds: the engine is told to wait once `highWater` bytes are buffered and to go on when
/// the reader brought them down to half of it. An engine without backpressure may push past
/// that; past `hardLimit` a push is refused and the operation fails (`NetOpsError.Kind.stream`).
final class StreamBuffer: BodyDemand, @unchecked Sendable {
    /// How the stream ended.
    enum End {
        case finished
        case failed(NetOpsError)
    }

    /// What a push did with its chunk.
    enum Push: Equatable {
        /// Buffered or handed to the waiting reader.
        case taken
        /// The reader left or the stream ended: the chunk goes nowhere.
        case dropped
        /// Buffering it would pass the hard limit.
        case overflow
    }

    private struct State {
        var chunks: [Data] = []
        /// The index of the oldest chunk not yet read (chunks before it are spent).
        var first = 0
        var buffered = 0
        var end: End?
        var reader: CheckedContinuation<Data?, any Error>?
        var readerMade = false
        var readerGone = false
        var demandWaiter: (@Sendable () -> Void)?
        var headWaiters: [CheckedContinuation<Void, Never>] = []
        var headArrived = false
    }

    /// Bytes buffered at which the engine is asked to wait.
    let highWater: Int
    /// Bytes buffered past which a push fails the stream.
    let hardLimit: Int
    private let state = Locked(State())
    /// The operation the stream belongs to: told when the reader takes a chunk (its idle clock
    /// restarts) and when the reader leaves early (it is cancelled).
    private let owner = Locked<StreamOwner?>(nil)

    init(highWater: Int, hardLimit: Int) {
        self.highWater = max(1, highWater)
        self.hardLimit = max(self.highWater, hardLimit)
    }

    /// Sets who hears of the reader's moves; once, when the operation is made.
    func attach(_ owner: StreamOwner) {
        self.owner.withLock { $0 = owner }
    }

    // MARK: The transfer's side

    /// Buffers `chunk`, or hands it to the reader waiting for one.
    func push(_ chunk: Data) -> Push {
        var resume: CheckedContinuation<Data?, any Error>?
        let push = state.withLock { state -> Push in
            guard state.end == nil, !state.readerGone else { return .dropped }
            if let reader = state.reader {
                state.reader = nil
                resume = reader
                return .taken
            }
            guard state.buffered + chunk.count <= hardLimit else { return .overflow }
            state.chunks.append(chunk)
            state.buffered += chunk.count
            return .taken
        }
        resume?.resume(returning: chunk)
        return push
    }

    /// The response the body belongs to was accepted: those waiting for it go on.
    func headDidArrive() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.headArrived = true
            defer { state.headWaiters = [] }
            return state.headWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Ends the stream: the reader takes what is buffered, then the end (nil, or the error).
    func end(_ end: End) {
        var reader: CheckedContinuation<Data?, any Error>?
        let (demand, heads) = state.withLock { state -> ((@Sendable () -> Void)?, [CheckedContinuation<Void, Never>]) in
            guard state.end == nil else { return (nil, []) }
            state.end = end
            if state.first == state.chunks.count {
                reader = state.reader
                state.reader = nil
            }
            defer {
                state.demandWaiter = nil
                state.headWaiters = []
            }
            return (state.demandWaiter, state.headWaiters)
        }
        if let reader {
            switch end {
            case .finished: reader.resume(returning: nil)
            case let .failed(error): reader.resume(throwing: error)
            }
        }
        demand?()
        for waiter in heads { waiter.resume() }
    }

    /// True once a response the operation accepts arrived.
    var headHasArrived: Bool { state.withLock { $0.headArrived } }

    /// Bytes buffered and not yet read (for tests and the operation's progress).
    var bufferedBytes: Int { state.withLock { $0.buffered } }

    // MARK: BodyDemand

    func whenReady(_ resume: @escaping @Sendable () -> Void) -> Bool {
        let replaced = state.withLock { state -> (ready: Bool, earlier: (@Sendable () -> Void)?) in
            if state.end != nil || state.readerGone || state.buffered < highWater { return (true, nil) }
            defer { state.demandWaiter = resume }
            return (false, state.demandWaiter)
        }
        replaced.earlier?()
        return replaced.ready
    }

    // MARK: The reader's side

    /// Waits until the response is accepted or the stream ended, whichever comes first.
    func awaitHead() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard !state.headArrived, state.end == nil else { return true }
                state.headWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Registers the one reader; false when there was one already.
    func claimReader() -> Bool {
        state.withLock { state in
            defer { state.readerMade = true }
            return !state.readerMade
        }
    }

    /// The next chunk; nil at the end of a finished stream. Cancelling the calling task ends the
    /// read with `CancellationError` and cancels the operation.
    func next() async throws -> Data? {
        let chunk: Data?
        // A reader whose task was cancelled after its last chunk was handed to it (and before it
        // read again) left already: it gets `CancellationError`, not the operation's end, which
        // its leaving caused.
        if let ready = state.withLock({ $0.readerGone ? .failure(CancellationError()) : Self.take(&$0) }) {
            chunk = try ready.get()
        } else {
            chunk = try await waitForChunk()
        }
        readerMoved()
        return chunk
    }

    /// Waits for the next chunk or the end.
    private func waitForChunk() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                let outcome = state.withLock { state -> Result<Data?, any Error>? in
                    if state.readerGone { return .failure(CancellationError()) }
                    if let ready = Self.take(&state) { return ready }
                    state.reader = continuation
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            readerCancelled()
        }
    }

    /// The oldest chunk, or the end once nothing is buffered; nil when there is neither.
    private static func take(_ state: inout State) -> Result<Data?, any Error>? {
        if state.first < state.chunks.count {
            let chunk = state.chunks[state.first]
            state.chunks[state.first] = Data()
            state.first += 1
            state.buffered -= chunk.count
            if state.first == state.chunks.count {
                state.chunks.removeAll(keepingCapacity: true)
                state.first = 0
            }
            return .success(chunk)
        }
        switch state.end {
        case .none: return nil
        case .finished: return .success(nil)
        case let .failed(error): return .failure(error)
        }
    }

    /// After a read: the engine goes on once the reader brought the buffer down to half the
    /// high-water mark, and the operation hears that its reader moved.
    private func readerMoved() {
        let demand = state.withLock { state -> (@Sendable () -> Void)? in
            guard state.demandWaiter != nil, state.buffered <= highWater / 2 else { return nil }
            defer { state.demandWaiter = nil }
            return state.demandWaiter
        }
        demand?()
        owner.withLock { $0 }?.readerDidTakeChunk()
    }

    /// The reading task was cancelled while it waited.
    private func readerCancelled() {
        let reader = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume(throwing: CancellationError())
        readerLeft()
    }

    /// The reader stopped reading before the end (its iterator went away, or its task was
    /// cancelled): nothing is buffered any more and the operation is cancelled.
    func readerLeft() {
        let (demand, ended) = state.withLock { state -> ((@Sendable () -> Void)?, Bool) in
            state.readerGone = true
            state.chunks = []
            state.first = 0
            state.buffered = 0
            defer { state.demandWaiter = nil }
            return (state.demandWaiter, state.end != nil)
        }
        demand?()
        if !ended { owner.withLock { $0 }?.readerDidLeave() }
    }
}

/// Who a stream's reader reports to: its operation, held weakly.
final class StreamOwner: Sendable {
    private let didTake: @Sendable () -> Void
    private let didLeave: @Sendable () -> Void

    init(didTake: @escaping @Sendable () -> Void, didLeave: @escaping @Sendable () -> Void) {
        self.didTake = didTake
        self.didLeave = didLeave
    }

    func readerDidTakeChunk() { didTake() }
    func readerDidLeave() { didLeave() }
}
