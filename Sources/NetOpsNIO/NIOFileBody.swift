import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix

/// A request body streamed from a file in fixed-size chunks, with constant memory.
///
/// Each chunk is read on NIO's shared blocking-I/O thread pool and written only after the
/// previous write completed, so a slow server slows the reading down instead of filling memory.
enum NIOFileBody {
    /// Bytes read and sent at a time.
    static let chunkSize = 64 * 1024

    /// The size of the file at `url`.
    /// - Throws: `CocoaError` when the file cannot be read.
    static func size(of url: URL) throws -> Int64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        guard let size = attributes[.size] as? NSNumber else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        return size.int64Value
    }

    /// A body of `size` bytes read from `url` (opened anew for each attempt or redirect).
    static func stream(_ url: URL, size: Int64) -> HTTPClient.Body {
        .stream(contentLength: size) { writer in
            let eventLoop = MultiThreadedEventLoopGroup.singleton.any()
            let pool = NIOThreadPool.singleton
            let opened = pool.runIfActive(eventLoop: eventLoop) { try FileHandle(forReadingFrom: url) }
            return opened.flatMap { handle in
                let finished = pump(handle, remaining: size, writer: writer, pool: pool, eventLoop: eventLoop)
                return finished.always { _ in try? handle.close() }
            }
        }
    }

    /// Reads the next chunk, writes it, and repeats until `remaining` bytes went out.
    private static func pump(
        _ handle: FileHandle, remaining: Int64, writer: HTTPClient.Body.StreamWriter,
        pool: NIOThreadPool, eventLoop: any EventLoop
    ) -> EventLoopFuture<Void> {
        guard remaining > 0 else { return eventLoop.makeSucceededVoidFuture() }
        let count = Int(min(Int64(chunkSize), remaining))
        return pool.runIfActive(eventLoop: eventLoop) { () throws -> ByteBuffer in
            let data = try handle.read(upToCount: count) ?? Data()
            guard !data.isEmpty else {
                throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the file shrank while it was sent"])
            }
            return ByteBuffer(bytes: data)
        }.flatMap { buffer in
            let sent = Int64(buffer.readableBytes)
            return writer.write(.byteBuffer(buffer)).flatMap {
                pump(handle, remaining: remaining - sent, writer: writer, pool: pool, eventLoop: eventLoop)
            }
        }
    }
}
