import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Short name of `StreamingOperation`.
public typealias SO = StreamingOperation

/// An operation whose response body is read as it arrives, chunk by chunk, instead of being
/// kept: JSON lines, server-sent events, a large export.
///
/// ```swift
/// let export = StreamingOperation.get("https://api.example.com/export.ndjson")
/// let response = try await export.response()   // starts it; waits for an accepted head
/// for try await line in export.body.lines { handle(line) }
/// ```
///
/// **Backpressure.** On the NIO engine the socket is not read faster than the reader takes:
/// once `bufferedBytes` are waiting, the engine stops reading until the reader took half of
/// them, so memory stays flat whatever the body's size. The URLSession engine cannot slow
/// libcurl down: a body-less GET is fetched in `Range` segments, the next one asked for only when
/// the reader caught up; any other request arrives whole, and a reader more than
/// `maximumBufferedBytes` behind fails the operation (`NetOpsError.Kind.stream`).
///
/// **Size.** A stream keeps nothing, so it has no size limit unless one is set on it
/// (`maximumResponseBodyBytes`, which an API scope's `adopt` sets to the scope's): past it the
/// operation fails with `transport(code: BaseOperation.responseBodyTooLargeCode, …)`, which the
/// body's read throws — the bound a reader needs that collects the body whole.
///
/// **Its life.** The operation is working until the body ended: `run()` returns (or throws) then,
/// and the body's last read returns nil (or throws the operation's error). A response whose
/// status the operation does not accept is not streamed: the operation fails with
/// `httpStatus`, the body's read throws it, and the first MiB of that body is in `receivedData`.
/// The body can be read once. A reader that stops before the end (its task is cancelled, or its
/// iterator is dropped) cancels the operation, which closes the connection.
///
/// **Timeouts, suspension, retries.** The idle timeout counts time in which neither the server
/// sent a byte nor the reader took one: a slow reader is not idle, a reader that takes nothing
/// for that long is. The total deadline counts everything. `suspend()` stops the transfer; the
/// reader waits, and `resume()` continues the body with a `Range` request from the last byte
/// read (retries do the same). A server that then sends the whole body again, or a body with a
/// content coding (its decoded length is no offset into what the server sends), fails the
/// operation with `stream` rather than repeat bytes. A streaming operation never shares its
/// transfer (a coalescer) nor goes through a response cache.
public final class StreamingOperation: BaseOperation, @unchecked Sendable {
    /// The default of `bufferedBytes`: 1 MiB.
    public static let defaultBufferedBytes = 1 << 20

    private let buffer: StreamBuffer

    /// Bytes waiting for the reader at which the engine stops reading.
    public var bufferedBytes: Int { buffer.highWater }

    /// Bytes waiting for the reader past which an engine without backpressure fails the
    /// operation: four times `bufferedBytes`, and at least 16 MiB.
    public var maximumBufferedBytes: Int { buffer.hardLimit }

    /// An operation for `request` whose engine reads ahead of the reader by at most
    /// `bufferedBytes` (at least one chunk).
    public convenience init(request: URLRequest, bufferedBytes: Int = StreamingOperation.defaultBufferedBytes) {
        self.init(built: .success(request), bufferedBytes: bufferedBytes)
    }

    /// An operation for `request` whose body is the file at `bodyFile`, streamed from disk and
    /// deleted when the operation ends (or is released without having run): what
    /// `APILayerTransport` sends a request body through when it does not keep it in memory.
    package convenience init(request: URLRequest, bodyFile: URL, bufferedBytes: Int = StreamingOperation.defaultBufferedBytes) {
        self.init(built: .success(request), body: .file(bodyFile), ownedBodyFile: bodyFile, bufferedBytes: bufferedBytes)
    }

    init(
        built: Result<URLRequest, NetOpsError>, body: TransferBody = .none, ownedBodyFile: URL? = nil,
        bufferedBytes: Int = StreamingOperation.defaultBufferedBytes
    ) {
        let highWater = max(1, bufferedBytes)
        let buffer = StreamBuffer(highWater: highWater, hardLimit: max(16 << 20, highWater.multipliedReportingOverflow(by: 4).partialValue))
        self.buffer = buffer
        super.init(request: built, body: body, sink: StreamSink(buffer: buffer), ownedBodyFile: ownedBodyFile)
        buffer.attach(
            StreamOwner(
                didTake: { [weak self] in self?.readerDidTakeChunk() },
                didLeave: { [weak self] in self?.cancel() }))
        whenFinal { [weak self, buffer] in
            guard let self else {
                buffer.end(.failed(NetOpsError(.cancelled, url: nil)))
                return
            }
            buffer.end(self.error.map { .failed($0) } ?? .finished)
        }
    }

    /// A `method` request to `url`, parameters encoded as `encoding` says (by default in the
    /// query for GET/HEAD/DELETE, as JSON otherwise), with `headers`.
    public static func request(
        _ method: HTTPMethod,
        _ url: some URLConvertible,
        parameters: Parameters = [:],
        encoding: ParameterEncoding? = nil,
        headers: [String: String] = [:],
        bufferedBytes: Int = StreamingOperation.defaultBufferedBytes
    ) -> StreamingOperation {
        StreamingOperation(
            built: RequestFactory.make(method, url, parameters: parameters, encoding: encoding, headers: headers), bufferedBytes: bufferedBytes)
    }

    /// A GET, parameters in the query.
    public static func get(
        _ url: some URLConvertible, parameters: Parameters = [:], headers: [String: String] = [:],
        bufferedBytes: Int = StreamingOperation.defaultBufferedBytes
    ) -> StreamingOperation {
        request(.get, url, parameters: parameters, headers: headers, bufferedBytes: bufferedBytes)
    }

    /// The response body, chunk by chunk as it arrives; it can be read once.
    public var body: ResponseBodyStream { ResponseBodyStream(buffer: buffer) }

    /// Starts the operation unless it started, and waits until a response it accepts arrived
    /// (its body may still be arriving, or may have broken since: its read tells).
    ///
    /// - Throws: the operation's `NetOpsError` when it ended without one (a status it does not
    ///   accept, a transport failure, cancellation).
    /// Cancelling the calling task cancels the operation.
    @discardableResult
    public func response() async throws -> HTTPURLResponse {
        if state == .readyToStart { start() }
        await withTaskCancellationHandler {
            await buffer.awaitHead()
        } onCancel: {
            cancel()
        }
        // An accepted head counts even if the transfer broke after it: the body's read then
        // gives what arrived, and the error.
        if buffer.headHasArrived, let response { return response }
        throw error ?? NetOpsError(.cancelled, url: request?.url)
    }

    /// The reader took a chunk: the transfer is not idle, even if the server is waiting for it.
    private func readerDidTakeChunk() {
        withLock {
            _ = machine.updateRun { $0.lastActivity = .now() }
        }
    }
}
