import AsyncHTTPClient
import Foundation
import NIOCore
import NetOps

/// Peak memory and speed of a large body read chunk by chunk as it arrives: a
/// `StreamingOperation` against raw AsyncHTTPClient's streamed body, same server, same client
/// settings.
enum StreamMemory {
    /// Reads `url` (a body of `expectedSize` bytes) through a `StreamingOperation` in `session`,
    /// touching each chunk and keeping none; throws unless every byte arrived.
    static func operation(_ url: URL, session: NetworkSession, expectedSize: Int64) async throws -> TransferFigures {
        try await measured(expectedSize: expectedSize) {
            let operation = SO.get(url)
            operation.privateSession = session
            try await operation.response()
            var received: Int64 = 0
            var checksum: UInt8 = 0
            for try await chunk in operation.body {
                received += Int64(chunk.count)
                checksum &+= chunk.last ?? 0
            }
            _ = checksum
            return received
        }
    }

    /// The baseline: AsyncHTTPClient's `execute(_:timeout:)` and its response body's chunks.
    static func rawAsyncHTTPClient(_ url: URL, client: HTTPClient, expectedSize: Int64) async throws -> TransferFigures {
        try await measured(expectedSize: expectedSize) {
            let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(600))
            var received: Int64 = 0
            var checksum: UInt8 = 0
            for try await buffer in response.body {
                received += Int64(buffer.readableBytes)
                checksum &+= buffer.readableBytesView.last ?? 0
            }
            _ = checksum
            return received
        }
    }

    /// Runs `read` from a trimmed heap and a reset peak; its peak RSS over the size before it,
    /// and its time.
    private static func measured(expectedSize: Int64, _ read: () async throws -> Int64) async throws -> TransferFigures {
        ProcessMetrics.returnFreedMemory()
        let baseline = ProcessMetrics.residentBytes()
        ProcessMetrics.resetPeak()
        let started = ContinuousClock.now
        let received = try await read()
        let elapsed = ContinuousClock.now - started
        let peak = ProcessMetrics.peakResidentBytes()
        guard received == expectedSize else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "streamed \(received) bytes, not \(expectedSize)"])
        }
        return TransferFigures(rssMiB: Double(max(0, peak - baseline)) / 1_048_576, seconds: elapsed.seconds)
    }
}
