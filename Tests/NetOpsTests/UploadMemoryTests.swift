import Crypto
import Foundation
import TestSupport
import Testing

@testable import NetOps

/// A file upload is streamed from disk: sending 64 MiB raises the process's peak resident memory
/// by far less than the file's size, on both engines.
///
/// Exclusive side of the process gate: the peak is the whole process's, so no load test may run
/// beside it (an ungated test's allocations can still add to it, which is why the best of two
/// uploads is what counts). A change that reads the whole file into memory raises the peak by
/// at least the file's size on every upload, far over the bound.
@Suite(.processGate(.exclusive, minutes: 3), .enabled(if: ResidentMemory.isMeaningful))
struct UploadMemoryTests {
    static let fileSize = 64 << 20
    /// Generous: a streamed upload measures a few MiB here.
    static let bound: Int64 = 16 << 20

    struct UploadReceipt: Decodable {
        let length: Int
        let sha256: String
    }

    @Test(arguments: TestEngine.allCases) func fileUploadStreams(_ engine: TestEngine) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netops-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("large.bin")
        let digest = try Self.writeFile(file, size: Self.fileSize)
        let url = try await TestServer.url("upload")
        let session = engine.makeSession()
        defer { if engine == .nio { Task { try? await session.shutdownNIOEngine() } } }

        // A small upload first: the session's threads, buffers and connection exist before measuring.
        try await UO.upload(Data(count: 1_024), to: url).on(session).run()

        var growths: [Int64] = []
        for _ in 0..<2 {
            let upload = UO.upload(fileAt: file, to: url, method: .put).on(session)
            let growth = try await ResidentMemory.peakGrowth { try await upload.run() }
            let receipt = try upload.decode(UploadReceipt.self)
            #expect(receipt.length == Self.fileSize)
            #expect(receipt.sha256 == digest)
            #expect(upload.progress.bytesSent == Int64(Self.fileSize))
            growths.append(try #require(growth, "the peak resident size cannot be reset here"))
            if growths.last! < Self.bound { break }
        }
        let best = growths.min()!
        #expect(best < Self.bound, "peak resident memory grew by \(best >> 20) MiB uploading \(Self.fileSize >> 20) MiB (\(growths))")
    }

    /// Writes `size` patterned bytes, 1 MiB at a time; returns their hex SHA-256.
    private static func writeFile(_ file: URL, size: Int) throws -> String {
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        var hasher = SHA256()
        var chunk = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var written = 0
        while written < size {
            // Each MiB differs from the others by its first eight bytes.
            chunk.replaceSubrange(0..<8, with: withUnsafeBytes(of: written) { Data($0) })
            let part = chunk.prefix(size - written)
            hasher.update(data: part)
            try handle.write(contentsOf: part)
            written += part.count
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
