import Foundation

/// Streams the body into a hidden partial file beside the destination and renames it into
/// place when the body is complete, so the destination is never seen half-written.
///
/// The sink has its own lock, and the chunks of a transfer are written with
/// `write(_:of:)` outside the operation's lock: a slow disk never holds up whoever asks the
/// operation for its state or progress, cancels it or suspends it. The sink admits the chunks of
/// one transfer at a time (`admit(_:)`, when the operation starts a transfer): a chunk of an
/// older transfer that arrives late is refused, so the file is always a prefix of the body and
/// `bytesKept` its length, and a `Range` request that resumes from there stays byte-identical.
/// The other calls come once per transfer, under the operation's lock, and do no file work
/// there but for `commit()`'s close and rename: the file is opened by the first chunk written
/// (or by `commit()` for an empty body), and `reset()` and `discard()` let go of the partial file
/// at once, in memory, and return its closing and deletion for after the lock (`SinkCleanup`),
/// the next body going to a file of a new name.
final class FileSink: ResponseSink, @unchecked Sendable {
    private struct State {
        var handle: FileHandle?
        var bytesKept: Int64 = 0
        /// The transfer whose chunks are written; nil after `discard()`.
        var writer: UInt64?
        /// Where the body is written until it is complete: hidden, beside the destination.
        var partialURL: URL
        /// The body of an answer the operation does not accept (an error status): held in
        /// memory instead of the file, which stays a prefix of the wanted body.
        var unaccepted: UnacceptedBody?
    }

    /// The body of an answer with a status the operation does not accept: its first
    /// `FileSink.unacceptedBodyLimit` bytes, and how many came.
    struct UnacceptedBody {
        var kept = Data()
        var received: Int64 = 0
    }

    /// The most bytes of an unaccepted answer's body held in memory (it says why the download
    /// failed; the rest is counted and dropped).
    static let unacceptedBodyLimit = 1 << 20

    let destination: URL
    private let state: Locked<State>

    init(destination: URL) {
        self.destination = destination
        state = Locked(State(partialURL: Self.partialFile(for: destination)))
    }

    /// A new hidden file name beside `destination`.
    private static func partialFile(for destination: URL) -> URL {
        let directory = destination.deletingLastPathComponent()
        return directory.appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).part")
    }

    /// Where the body is being written now.
    var partialURL: URL { state.withLock { $0.partialURL } }

    /// Bytes kept of the current body: in the file, or of an unaccepted body, in memory.
    var bytesKept: Int64 { state.withLock { $0.unaccepted?.received ?? $0.bytesKept } }

    /// What an answer with an unaccepted status brought, in memory; empty otherwise.
    var bodyInMemory: Data { state.withLock { $0.unaccepted?.kept ?? Data() } }

    /// An answer with an unaccepted status: its body is held in memory, the file left as it is.
    func responseArrived(accepted: Bool) {
        if !accepted { holdUnacceptedBody() }
    }

    /// From now on only the chunks of transfer `attempt` are written (to the file, until
    /// `holdUnacceptedBody()`).
    func admit(_ attempt: UInt64) {
        state.withLock { state in
            state.writer = attempt
            state.unaccepted = nil
        }
    }

    /// The current transfer's answer has a status the operation does not accept: its body is
    /// held in memory (bounded) and the file is left as it is.
    private func holdUnacceptedBody() {
        state.withLock { $0.unaccepted = UnacceptedBody() }
    }

    /// From now on no transfer's chunks are written; returns the length kept, the chunks written
    /// so far included (one that was being written when this was called too).
    func stopAdmitting() -> Int64 {
        state.withLock { state in
            state.writer = nil
            return state.bytesKept
        }
    }

    /// Writes `chunk` of transfer `attempt`: the bytes kept after it, or nil when that transfer
    /// is no longer the one admitted (the chunk is dropped).
    func write(_ chunk: Data, of attempt: UInt64) throws -> Int64? {
        try state.withLock { state in
            guard state.writer == attempt else { return nil }
            if state.unaccepted != nil {
                Self.hold(chunk, in: &state.unaccepted!)
                return state.unaccepted!.received
            }
            try openHandle(&state).write(contentsOf: chunk)
            state.bytesKept += Int64(chunk.count)
            return state.bytesKept
        }
    }

    /// Nothing to do: the file is opened by the first chunk written, outside the operation's lock.
    func prepare(expectedLength: Int64?) throws {}

    func append(_ chunk: Data) throws {
        try state.withLock { state in
            if state.unaccepted != nil { return Self.hold(chunk, in: &state.unaccepted!) }
            try openHandle(&state).write(contentsOf: chunk)
            state.bytesKept += Int64(chunk.count)
        }
    }

    func reset() -> SinkCleanup? {
        state.withLock { state in
            state.bytesKept = 0
            return letGo(&state)
        }
    }

    func commit() throws {
        try state.withLock { state in
            // A stage accepted an answer of an unaccepted status: what was held is the body.
            if let unaccepted = state.unaccepted { try openHandle(&state).write(contentsOf: unaccepted.kept) }
            try openHandle(&state).close()
            state.handle = nil
            state.writer = nil
            // rename(2) replaces an existing destination atomically.
            guard rename(state.partialURL.path, destination.path) == 0 else {
                let reason = String(cString: strerror(errno))
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path, NSLocalizedDescriptionKey: reason])
            }
        }
    }

    func discard() -> SinkCleanup? {
        state.withLock { state in
            state.writer = nil
            state.bytesKept = 0
            return letGo(&state)
        }
    }

    /// Counts `chunk` of an unaccepted body and keeps what fits under the limit.
    private static func hold(_ chunk: Data, in body: inout UnacceptedBody) {
        body.received += Int64(chunk.count)
        let room = unacceptedBodyLimit - body.kept.count
        if room > 0 { body.kept.append(chunk.prefix(room)) }
    }

    /// Forgets the partial file (the next body goes to a file of a new name) and returns its
    /// closing and deletion, to run after the operation's lock.
    private func letGo(_ state: inout State) -> SinkCleanup {
        let cleanup = SinkCleanup(handle: state.handle, file: state.partialURL)
        state.handle = nil
        state.partialURL = Self.partialFile(for: destination)
        return cleanup
    }

    private func openHandle(_ state: inout State) throws -> FileHandle {
        if let handle = state.handle { return handle }
        let manager = FileManager.default
        let partialURL = state.partialURL
        try manager.createDirectory(at: partialURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        if !manager.fileExists(atPath: partialURL.path) {
            guard manager.createFile(atPath: partialURL.path, contents: nil) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: partialURL.path])
            }
        }
        let opened = try FileHandle(forWritingTo: partialURL)
        try opened.seekToEnd()
        state.handle = opened
        return opened
    }
}
