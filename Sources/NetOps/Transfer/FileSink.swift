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
/// The other calls (once per transfer, not per chunk) come under the operation's lock.
final class FileSink: ResponseSink, @unchecked Sendable {
    private struct State {
        var handle: FileHandle?
        var bytesKept: Int64 = 0
        /// The transfer whose chunks are written; nil after `discard()`.
        var writer: UInt64?
    }

    let destination: URL
    let partialURL: URL
    private let state = Locked(State())

    init(destination: URL) {
        self.destination = destination
        let directory = destination.deletingLastPathComponent()
        partialURL = directory.appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).part")
    }

    var bytesKept: Int64 { state.withLock { $0.bytesKept } }

    /// From now on only the chunks of transfer `attempt` are written.
    func admit(_ attempt: UInt64) {
        state.withLock { $0.writer = attempt }
    }

    /// Writes `chunk` of transfer `attempt`: the bytes kept after it, or nil when that transfer
    /// is no longer the one admitted (the chunk is dropped).
    func write(_ chunk: Data, of attempt: UInt64) throws -> Int64? {
        try state.withLock { state in
            guard state.writer == attempt else { return nil }
            try openHandle(&state).write(contentsOf: chunk)
            state.bytesKept += Int64(chunk.count)
            return state.bytesKept
        }
    }

    func prepare(expectedLength: Int64?) throws {
        try state.withLock { _ = try openHandle(&$0) }
    }

    func append(_ chunk: Data) throws {
        try state.withLock { state in
            try openHandle(&state).write(contentsOf: chunk)
            state.bytesKept += Int64(chunk.count)
        }
    }

    func reset() throws {
        try state.withLock { state in
            try openHandle(&state).truncate(atOffset: 0)
            state.bytesKept = 0
        }
    }

    func commit() throws {
        try state.withLock { state in
            try openHandle(&state).close()
            state.handle = nil
            state.writer = nil
            // rename(2) replaces an existing destination atomically.
            guard rename(partialURL.path, destination.path) == 0 else {
                let reason = String(cString: strerror(errno))
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path, NSLocalizedDescriptionKey: reason])
            }
        }
    }

    func discard() {
        state.withLock { state in
            try? state.handle?.close()
            state.handle = nil
            state.writer = nil
            try? FileManager.default.removeItem(at: partialURL)
            state.bytesKept = 0
        }
    }

    private func openHandle(_ state: inout State) throws -> FileHandle {
        if let handle = state.handle { return handle }
        let manager = FileManager.default
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
