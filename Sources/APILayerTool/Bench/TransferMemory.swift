import Foundation
import NetOps

/// Peak memory of large transfers through NetOps operations.
enum TransferMemory {
    /// Extra peak RSS (MiB) of a DownloadOperation in `session` streaming `url` to a file.
    static func download(_ url: URL, session: NetworkSession) async throws -> Double {
        try await timedDownload(url, session: session).rssMiB
    }

    /// Extra peak RSS (MiB) and the seconds taken by a DownloadOperation in `session` streaming
    /// `url` to a file; throws unless the file holds `expectedSize` bytes (when given).
    static func timedDownload(_ url: URL, session: NetworkSession, expectedSize: Int64? = nil) async throws -> TransferFigures {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("download.bin")
        ProcessMetrics.returnFreedMemory()
        let baseline = ProcessMetrics.residentBytes()
        ProcessMetrics.resetPeak()
        let started = ContinuousClock.now
        let operation = DO.get(url, to: file)
        operation.privateSession = session
        try await operation.run()
        let elapsed = ContinuousClock.now - started
        let peak = ProcessMetrics.peakResidentBytes()
        try checkSize(of: file, expectedSize)
        return TransferFigures(rssMiB: Double(max(0, peak - baseline)) / 1_048_576, seconds: elapsed.seconds)
    }

    /// Throws unless `file` holds `expectedSize` bytes (nil: anything goes).
    static func checkSize(of file: URL, _ expectedSize: Int64?) throws {
        guard let expectedSize else { return }
        let size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? -1
        guard size == expectedSize else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "downloaded \(size) bytes, not \(expectedSize)"])
        }
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

/// What one large transfer cost: extra peak RSS and wall-clock time.
struct TransferFigures: Sendable {
    /// Peak RSS over the RSS before the transfer, in MiB.
    var rssMiB: Double
    /// Seconds from start to the file in place.
    var seconds: Double

    /// Throughput for `bytes`, in MB/s (10^6 bytes per second).
    func megabytesPerSecond(_ bytes: Int64) -> Double {
        seconds > 0 ? Double(bytes) / seconds / 1_000_000 : 0
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

extension TransferFigures {
    /// The median RSS and the median time of `runs` (each taken on its own).
    static func median(_ runs: [TransferFigures]) -> TransferFigures {
        let rss = runs.map(\.rssMiB).sorted()
        let seconds = runs.map(\.seconds).sorted()
        return TransferFigures(rssMiB: rss[rss.count / 2], seconds: seconds[seconds.count / 2])
    }
}
