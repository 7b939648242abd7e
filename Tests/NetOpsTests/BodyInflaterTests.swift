import DemoServer
import Foundation
import NIOCore
import Testing

@testable import NetOps
@testable import NetOpsNIO

/// The NIO engine's decoder of gzip and deflate bodies, on streams made by the `gzip` tool (its
/// dynamic Huffman blocks) and by DemoServer's encoder (the zlib format), fed in pieces as a
/// connection delivers them. The conformance suite runs the same decoder over HTTP.
struct BodyInflaterTests {
    /// Text that compresses as real responses do: repeated keys, changing values.
    static let text = Data((0..<4_000).map { "{\"id\":\($0),\"name\":\"user \($0 * 7919 % 1000)\",\"active\":\($0 % 3 == 0)}\n" }.joined().utf8)

    /// `data` compressed by `/usr/bin/gzip -c`.
    static func gzip(_ data: Data) throws -> Data {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("inflater-\(UUID().uuidString)")
        try data.write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gzip")
        process.arguments = ["-c", "-9", input.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let compressed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return compressed
    }

    /// Feeds `encoded` to a new inflater in pieces of `piece` bytes and finishes it.
    static func decode(_ encoded: Data, piece: Int, ratio: Int = 100) throws(NIOTransferDelegate.Refused) -> Data {
        let inflater = try BodyInflater(ratio: ratio)
        var decoded = Data()
        var offset = 0
        while offset < encoded.count {
            let end = min(encoded.count, offset + piece)
            decoded += try inflater.decode(ByteBuffer(bytes: encoded[offset..<end]))
            offset = end
        }
        try inflater.finish()
        return decoded
    }

    /// The reason of a decoding failure (`-1016`), nil for any other failure.
    static func decodingReason(_ failure: TransferFailure) -> String? {
        guard case let .other(code, reason) = failure, code == ContentDecoding.failureCode else { return nil }
        return reason
    }

    @Test(arguments: [1, 1_000, 1 << 20])
    func gzipStreamsDecodeWholeInAnyPieces(piece: Int) throws {
        let encoded = try Self.gzip(Self.text)
        #expect(encoded.count < Self.text.count / 4)
        #expect(try Self.decode(encoded, piece: piece) == Self.text)
    }

    @Test func zlibStreamsDecodeToo() throws {
        let encoded = Data(ContentEncoder.encode([UInt8](Self.text), as: .deflate))
        #expect(try Self.decode(encoded, piece: 4_096) == Self.text)
    }

    @Test func aStreamCutShortFailsAtTheEnd() throws {
        let encoded = try Self.gzip(Self.text)
        #expect(throws: NIOTransferDelegate.Refused.self) { try Self.decode(encoded.dropLast(10), piece: 1_000) }
        do {
            _ = try Self.decode(encoded.dropLast(10), piece: 1_000)
        } catch {
            #expect(error.failure == .connectionLost("the encoded body ended before its last block"))
        }
    }

    @Test func bytesAfterTheStreamAreRefused() throws {
        let encoded = try Self.gzip(Self.text)
        for trailing in [Data("junk".utf8), encoded] {
            do {
                _ = try Self.decode(encoded + trailing, piece: 1_000)
                Issue.record("\(trailing.count) bytes after the stream were taken")
            } catch {
                #expect(error.failure == ContentDecoding.corrupt("bytes follow the end of the encoded body"))
            }
        }
    }

    @Test func bytesThatAreNoStreamAreRefused() {
        do {
            _ = try Self.decode(Data(repeating: 0xff, count: 64), piece: 64)
            Issue.record("garbage decoded")
        } catch {
            #expect(Self.decodingReason(error.failure)?.contains("zlib error") == true, "\(error.failure)")
        }
    }

    @Test func aBodyOfNoBytesIsEmpty() throws {
        #expect(try Self.decode(Data(), piece: 1).isEmpty)
    }

    /// 16 MiB of zeros in about 16 KB: the decoder stops once the output passes the ratio, after
    /// at most one output buffer more, without holding what the stream unpacks to.
    @Test func aBombStopsAtTheRatio() throws {
        let encoded = try Self.gzip(Data(count: 16 << 20))
        let inflater = try BodyInflater(ratio: 100)
        var decoded = 0
        do {
            var offset = 0
            while offset < encoded.count {
                let end = min(encoded.count, offset + 1_000)
                decoded += try inflater.decode(ByteBuffer(bytes: encoded[offset..<end])).count
                offset = end
            }
            Issue.record("the bomb decoded whole")
        } catch {
            #expect(Self.decodingReason(error.failure)?.contains("decompression bomb") == true, "\(error.failure)")
            #expect(decoded <= 100 * encoded.count)
        }
        // The limit is the session's: a larger one decodes the same stream whole.
        #expect(try Self.decode(encoded, piece: 1_000, ratio: 10_000) == Data(count: 16 << 20))
    }
}
