import Foundation

/// A streamed response body (`StreamingOperation.body`): its chunks, in order, as they arrive.
///
/// It can be iterated once; a second iterator throws `NetOpsError.Kind.stream`. The last read
/// returns nil when the operation succeeded, or throws its error (an unaccepted status, a
/// broken connection, a timeout, cancellation). Dropping the iterator before the end, or
/// cancelling the task that reads, cancels the operation.
public struct ResponseBodyStream: AsyncSequence, Sendable {
    /// A chunk of the body.
    public typealias Element = Data

    let buffer: StreamBuffer

    /// The one iterator of the body.
    public func makeAsyncIterator() -> Iterator {
        Iterator(reader: buffer.claimReader() ? StreamReader(buffer: buffer) : nil)
    }

    /// Reads the body's chunks.
    public struct Iterator: AsyncIteratorProtocol {
        let reader: StreamReader?

        /// The next chunk; nil at the end of the body.
        public mutating func next() async throws -> Data? {
            guard let reader else {
                throw NetOpsError(.stream(reason: "the body was read already: it can be read once"), url: nil)
            }
            return try await reader.next()
        }
    }
}

/// The reader of a body: when it goes away before the body's end, its operation is cancelled.
final class StreamReader: Sendable {
    private let buffer: StreamBuffer
    private let ended = Locked(false)

    init(buffer: StreamBuffer) {
        self.buffer = buffer
    }

    func next() async throws -> Data? {
        do {
            let chunk = try await buffer.next()
            if chunk == nil { ended.withLock { $0 = true } }
            return chunk
        } catch {
            ended.withLock { $0 = true }
            throw error
        }
    }

    deinit {
        if !ended.withLock({ $0 }) { buffer.readerLeft() }
    }
}
