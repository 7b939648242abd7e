import CNetOpsZlib
import Foundation
import NIOCore
import NetOps

/// Decodes one gzip or deflate response body (zlib's `inflate`), chunk by chunk, and stops it
/// once it grows past `ratio` times the encoded bytes read so far: a decompression bomb fails
/// after at most one output buffer past the limit, never after allocating what it unpacks to.
///
/// The NIO engine decodes in its delegate instead of putting AsyncHTTPClient's decompression
/// handler into every connection's pipeline: that handler costs every request (about 10 000
/// instructions, counted as `Docs/engines.md#counting-instructions` shows), this one only a
/// response that is encoded.
///
/// One body, one inflater, used only by that request's delegate, whose callbacks AsyncHTTPClient
/// makes one at a time on the request's event loop: never by two threads at once.
final class BodyInflater: @unchecked Sendable {
    /// zlib keeps the stream's address in its state: the stream lives in its own allocation.
    private let stream: UnsafeMutablePointer<z_stream>
    private let ratio: Int
    private var output: [UInt8]
    private var encoded = 0
    private var decoded = 0
    private(set) var ended = false

    /// Output produced per call to zlib's `inflate`.
    private static let outputSize = 16 << 10
    /// 15 window bits, plus 32: zlib recognises the gzip and the zlib (`deflate`) format by its
    /// header, as AsyncHTTPClient's decompressor does.
    private static let windowBits: Int32 = 15 + 32

    /// An inflater for one body that may grow to `ratio` times its encoded size.
    init(ratio: Int) throws(NIOTransferDelegate.Refused) {
        self.ratio = ratio
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        output = [UInt8](repeating: 0, count: Self.outputSize)
        let status = cnetopszlib_inflate_init2(stream, Self.windowBits)
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw NIOTransferDelegate.Refused(failure: ContentDecoding.corrupt("zlib could not start (error \(status))"))
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Decodes the next encoded chunk; returns what it decodes to (empty while zlib needs more).
    func decode(_ chunk: ByteBuffer) throws(NIOTransferDelegate.Refused) -> Data {
        guard chunk.readableBytes > 0 else { return Data() }
        guard !ended else { throw Self.trailingData }
        encoded += chunk.readableBytes
        var decodedChunk = Data()
        let failure: TransferFailure? = chunk.withUnsafeReadableBytes { input in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.pointee.avail_in = UInt32(input.count)
            defer {
                stream.pointee.next_in = nil
                stream.pointee.avail_in = 0
            }
            return output.withUnsafeMutableBufferPointer { buffer -> TransferFailure? in
                while true {
                    stream.pointee.next_out = buffer.baseAddress
                    stream.pointee.avail_out = UInt32(buffer.count)
                    let status = inflate(stream, Z_NO_FLUSH)
                    let written = buffer.count - Int(stream.pointee.avail_out)
                    stream.pointee.next_out = nil
                    stream.pointee.avail_out = 0
                    switch status {
                    case Z_OK, Z_STREAM_END, Z_BUF_ERROR:
                        break
                    default:
                        return ContentDecoding.corrupt("zlib error \(status)")
                    }
                    decoded += written
                    if decoded > encoded * ratio {
                        return ContentDecoding.bomb(decoded: Int64(decoded), limit: "\(ratio) times its encoded size")
                    }
                    decodedChunk.append(buffer.baseAddress!, count: written)
                    if status == Z_STREAM_END {
                        ended = true
                        return stream.pointee.avail_in > 0 ? Self.trailingData.failure : nil
                    }
                    // zlib stops when the input is used up, or when the output is full and
                    // more may follow; Z_BUF_ERROR: no progress possible until more input.
                    if status == Z_BUF_ERROR || (stream.pointee.avail_in == 0 && written < buffer.count) { return nil }
                }
            }
        }
        if let failure { throw NIOTransferDelegate.Refused(failure: failure) }
        return decodedChunk
    }

    /// The body ended: it must have ended as a whole encoded stream. A body of no bytes at all
    /// (`Content-Length: 0`) is empty, whatever coding its header names.
    func finish() throws(NIOTransferDelegate.Refused) {
        guard !ended, encoded > 0 else { return }
        throw NIOTransferDelegate.Refused(failure: .connectionLost("the encoded body ended before its last block"))
    }

    private static let trailingData = NIOTransferDelegate.Refused(failure: ContentDecoding.corrupt("bytes follow the end of the encoded body"))
}
