import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// The smallest `HTTPClientResponseDelegate` an awaited request needs: it counts the body's
/// bytes (reads each part, as `collect` does) and answers the status; the task's future, awaited,
/// carries the end. Measures what AsyncHTTPClient's delegate API costs an awaited request (its
/// `RequestBag`, generic over a delegate from another module) against its async API
/// (`Transaction`).
///
/// Unchecked: AsyncHTTPClient calls a delegate on one event loop, one callback at a time.
package final class RawCollectingDelegate: HTTPClientResponseDelegate, @unchecked Sendable {
    package typealias Response = Int
    /// The body's length so far: each part is read, not dropped unseen.
    private var bytes = 0
    private var status = 0

    package init() {}

    package func didReceiveHead(task: HTTPClient.Task<Int>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        status = Int(head.status.code)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    package func didReceiveBodyPart(task: HTTPClient.Task<Int>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        bytes += buffer.readableBytes
        return task.eventLoop.makeSucceededVoidFuture()
    }

    package func didFinishRequest(task: HTTPClient.Task<Int>) throws -> Int { status }

    /// Sends `request` and waits for its end.
    package static func get(_ client: HTTPClient, _ request: HTTPClient.Request) async -> Int? {
        try? await client.execute(request: request, delegate: RawCollectingDelegate()).futureResult.get()
    }
}
