import Foundation
import NetOps

/// Peak memory of large transfers through NetOps operations.
enum TransferMemory {
    /// Extra peak RSS (MiB) of a DownloadOperation in `session` streaming `url` to a file.
    static func download(_ url: URL, session: NetworkSession) async throws -> Double {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let baseline = ProcessMetrics.residentBytes()
        ProcessMetrics.resetPeak()
        let operation = DO.get(url, to: directory.appendingPathComponent("download.bin"))
        operation.privateSession = session
        try await operation.run()
        let peak = ProcessMetrics.peakResidentBytes()
        return Double(max(0, peak - baseline)) / 1_048_576
    }

    /// Extra peak RSS (MiB) of an UploadOperation in `session` sending a `size`-byte file to `url`.
    static func upload(size: Int64, to url: URL, session: NetworkSession) async throws -> Double {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("upload.bin")
        try writeFile(file, size: size)
        let baseline = ProcessMetrics.residentBytes()
        ProcessMetrics.resetPeak()
        let operation = UO.upload(fileAt: file, to: url, method: .put)
        operation.privateSession = session
        try await operation.run()
        let peak = ProcessMetrics.peakResidentBytes()
        return Double(max(0, peak - baseline)) / 1_048_576
    }

    /// A new empty folder under the temporary directory; the caller removes it.
    static func scratchDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Writes `size` patterned bytes in 1 MiB chunks (never the whole file in memory).
    private static func writeFile(_ file: URL, size: Int64) throws {
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        let chunk = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var written: Int64 = 0
        while written < size {
            let part = Int(min(Int64(chunk.count), size - written))
            try handle.write(contentsOf: chunk.prefix(part))
            written += Int64(part)
        }
    }
}
