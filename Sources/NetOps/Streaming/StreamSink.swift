import Foundation

/// Hands a response body to its `StreamBuffer` as it arrives, instead of keeping it.
///
/// Used under its operation's lock, like `MemorySink`. The body of a response with a status the
/// operation does not accept is not streamed: its first `heldBodyLimit` bytes are kept in memory,
/// where stages (a 401's challenge) and the caller (`receivedData`) read why.
///
/// What was pushed counts as kept (`bytesKept`), so a suspension or a retry resumes with a
/// `Range` request from there. A server that answers a resumption with the whole body again
/// cannot be followed: what the reader took cannot be taken back, so the stream fails.
final class StreamSink: ResponseSink {
    /// The most bytes of an unaccepted response's body kept in memory.
    static let heldBodyLimit = 1 << 20

    let buffer: StreamBuffer
    /// Bytes pushed to the buffer so far, over every attempt.
    private(set) var delivered: Int64 = 0
    /// The response in progress has a status the operation does not accept.
    private var holding = false
    /// The first bytes of that response's body.
    private(set) var heldBody = Data()
    /// The bytes of that body that arrived (kept or not).
    private var heldReceived: Int64 = 0
    /// Why the body cannot go on, once it cannot.
    private var broken: String?

    init(buffer: StreamBuffer) {
        self.buffer = buffer
    }

    /// Bytes of the current body: what the reader was given, or what an unaccepted answer brought.
    var bytesKept: Int64 { holding ? heldReceived : delivered }

    var bodyInMemory: Data { heldBody }

    /// A new transfer starts: its body goes to the reader unless its head says otherwise.
    func admit(_ transfer: UInt64) {
        holding = false
        heldBody = Data()
        heldReceived = 0
    }

    /// An accepted response's body goes to the reader, who may now go on; an unaccepted one's
    /// is kept here, not streamed.
    func responseArrived(accepted: Bool) {
        holding = !accepted
        heldBody = Data()
        heldReceived = 0
        if accepted { buffer.headDidArrive() }
    }

    func prepare(expectedLength: Int64?) throws {}

    func append(_ data: Data) throws {
        if holding {
            heldReceived += Int64(data.count)
            let room = Self.heldBodyLimit - heldBody.count
            if room > 0 { heldBody.append(data.prefix(room)) }
            return
        }
        if let broken { throw NetOpsError(.stream(reason: broken), url: nil) }
        switch buffer.push(data) {
        case .taken, .dropped:
            delivered += Int64(data.count)
        case .overflow:
            throw NetOpsError(
                .stream(
                    reason: "the reader fell more than \(buffer.hardLimit) bytes behind, and this engine cannot slow the server "
                        + "down for this request (the NIO engine can)"),
                url: nil)
        }
    }

    func reset() -> SinkCleanup? {
        if delivered > 0 {
            broken = "the server sent the body again from its start after \(delivered) bytes of it were read; a stream cannot take them back"
        }
        heldBody = Data()
        return nil
    }

    func commit() throws {}

    func discard() -> SinkCleanup? {
        nil
    }
}
