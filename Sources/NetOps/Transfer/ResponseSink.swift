import Foundation

/// Where a response body goes as it arrives.
///
/// `MemorySink` is used only under its operation's lock. `FileSink` has a lock of its own and
/// takes its chunks outside the operation's lock, so no file write ever holds it (see `FileSink`).
///
/// A sink can keep what arrived across a suspension (`bytesKept`) so the transfer resumes with a
/// `Range` request, or start over (`reset`) when the server sends the whole body again.
///
/// Dropping what a sink kept is decided under the operation's lock but costs no file work there:
/// `reset()` and `discard()` forget the partial file at once and hand back a `SinkCleanup` that
/// the operation runs after leaving its lock.
protocol ResponseSink: AnyObject {
    /// Bytes kept so far.
    var bytesKept: Int64 { get }
    /// The body held in memory: the whole body (`MemorySink`), or the first MiB of an answer
    /// with a status the operation does not accept, which says why it failed.
    var bodyInMemory: Data { get }
    /// The transfer numbered `transfer` starts: only its chunks count from now on, and the
    /// body of an earlier unaccepted answer is dropped.
    func admit(_ transfer: UInt64)
    /// The response head of the transfer in progress arrived; `accepted` tells whether the
    /// operation accepts its status (a sink that does not keep bodies holds an unaccepted one's).
    func responseArrived(accepted: Bool)
    /// Prepares for a body of `expectedLength` more bytes (nil: unknown).
    func prepare(expectedLength: Int64?) throws
    /// Appends a chunk.
    func append(_ data: Data) throws
    /// Drops everything kept so far (the server is sending the whole body again); returns the
    /// file work that implies, to run after the operation's lock.
    func reset() -> SinkCleanup?
    /// The body arrived whole and was accepted: make it final (move a file into place).
    func commit() throws
    /// The operation failed or was cancelled: frees memory and forgets the partial file, whose
    /// closing and deletion it returns, to run after the operation's lock.
    func discard() -> SinkCleanup?
}

/// A partial file a `FileSink` let go of: closed and deleted after the operation's lock. Nothing
/// writes to it any more (the sink starts any later body in a file of another name).
struct SinkCleanup: @unchecked Sendable {
    /// The open handle, if the file was opened.
    let handle: FileHandle?
    /// The file.
    let file: URL

    /// Closes and deletes the file.
    func run() {
        try? handle?.close()
        unlink(file.path)
    }
}

/// Collects the body in memory, in one buffer sized from `Content-Length` when there is one, so
/// the peak stays at the body's size (FoundationNetworking's own collection peaks at twice it).
/// Every answer's body is kept the same way, accepted or not.
final class MemorySink: ResponseSink {
    /// Reservations above this are not made up front (a lying header must not reserve gigabytes).
    static let maximumReservation: Int64 = 1 << 30

    private(set) var data = Data()
    /// The bytes announced for the body still to come, reserved when its first chunk arrives.
    private var announced: Int64?

    var bytesKept: Int64 { Int64(data.count) }

    var bodyInMemory: Data { data }

    func admit(_ transfer: UInt64) {}

    func responseArrived(accepted: Bool) {}

    func prepare(expectedLength: Int64?) throws {
        guard let expectedLength, expectedLength > 0 else { return }
        announced = expectedLength
    }

    func append(_ chunk: Data) throws {
        if let expected = announced {
            announced = nil
            // A body that arrives in one chunk is kept as it came: no buffer, no copy.
            if data.isEmpty, Int64(chunk.count) == expected, chunk.startIndex == 0 {
                data = chunk
                return
            }
            data.reserveCapacity(Int(min(expected, Self.maximumReservation)) + data.count)
        }
        data.append(chunk)
    }

    func reset() -> SinkCleanup? {
        data = Data()
        announced = nil
        return nil
    }

    func commit() throws {}

    func discard() -> SinkCleanup? {
        data = Data()
        announced = nil
        return nil
    }
}
