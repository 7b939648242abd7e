import ArgumentParser
import Foundation
import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `apilayer bench netops`: NetOps operations against raw URLSession on the same server, in one
/// interleaved run, plus the memory a large download and a large in-memory body cost.
struct NetOpsBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "netops",
        abstract: "Small-GET throughput and CPU per request vs raw URLSession; RSS of large transfers."
    )

    @OptionGroup var server: BenchServer

    @Option(help: "Requests per round and concurrency.")
    var requests = 1_500

    @Option(help: "Rounds per variant and concurrency (interleaved, the median is reported).")
    var rounds = 3

    @Option(help: "Size of the download measured for memory, in MiB.")
    var downloadMiB = 1_024

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    func run() async throws {
        let (base, child) = try server.start()
        defer { child?.stop() }
        let smallURL = base.appendingPathComponent("json")
        let configuration = NetworkSession.defaultConfiguration()
        configuration.httpMaximumConnectionsPerHost = 64
        BaseOperation.defaultSession = NetworkSession(configuration: configuration)
        let raw = URLSession(configuration: configuration)

        var figures: [BenchFigure] = []
        var notes: [String] = []
        for concurrency in [1, 8, 64] {
            let result = measureThroughput(url: smallURL, concurrency: concurrency, raw: raw)
            figures.append(
                BenchFigure(
                    name: "get-c\(concurrency)-throughput", value: result.ours.requestsPerSecond,
                    baseline: result.raw.requestsPerSecond, unit: "req/s", target: ">= 0.95"))
            if concurrency == 64 {
                figures.append(
                    BenchFigure(
                        name: "get-c64-cpu-per-request", value: result.ours.cpuMillisecondsPerRequest,
                        baseline: result.raw.cpuMillisecondsPerRequest, unit: "ms", target: "<= 1.05"))
            }
        }

        let downloadURL = base.appendingPathComponent("bytes/\(downloadMiB << 20)")
        let rawDownload = try measureRawDownload(url: downloadURL, configuration: configuration)
        let download = try await TransferMemory.download(downloadURL, session: BaseOperation.defaultSession)
        figures.append(
            BenchFigure(
                name: "download-\(downloadMiB == 1_024 ? "1gib" : "\(downloadMiB)mib")-rss-over-baseline",
                value: download, baseline: rawDownload, unit: "MiB", target: "<= 16"))

        let bodySize = 50 << 20
        let extra = try await measureDataBody(url: base.appendingPathComponent("bytes/\(bodySize)"), size: bodySize)
        figures.append(
            BenchFigure(
                name: "data-50mib-rss-over-baseline", value: extra / 1_048_576, baseline: Double(bodySize) / 1_048_576,
                ratio: extra / Double(bodySize), unit: "MiB", target: "<= 1.1"))

        notes.append("server: \(server.label); \(requests) requests per round, \(rounds) interleaved rounds, medians")
        notes.append("throughput/cpu ratio = DataTaskOperation / raw URLSession (same configuration, completion-handler tasks)")
        notes.append("download baseline = a raw URLSession data task whose delegate streams chunks to a file (FoundationNetworking's own buffering)")
        BenchReport(suite: "netops", figures: figures, notes: notes).print(json: json)
        raw.invalidateAndCancel()
    }

    /// Alternates raw and NetOps rounds so drift in the machine's load hits both alike.
    private func measureThroughput(url: URL, concurrency: Int, raw: URLSession) -> (ours: LoadResult, raw: LoadResult) {
        let sendRaw: @Sendable (@escaping @Sendable () -> Void) -> Void = { done in
            raw.dataTask(with: url) { _, _, _ in done() }.resume()
        }
        let sendOurs: @Sendable (@escaping @Sendable () -> Void) -> Void = { done in
            DTO.get(url).onCompletion { _ in done() }.start()
        }
        // Warm both paths (connections, caches).
        _ = LoadRound.run(count: 200, concurrency: concurrency, send: sendRaw)
        _ = LoadRound.run(count: 200, concurrency: concurrency, send: sendOurs)
        var ours: [LoadResult] = []
        var baseline: [LoadResult] = []
        for _ in 0..<rounds {
            baseline.append(LoadRound.run(count: requests, concurrency: concurrency, send: sendRaw))
            ours.append(LoadRound.run(count: requests, concurrency: concurrency, send: sendOurs))
        }
        return (LoadResult.median(ours), LoadResult.median(baseline))
    }

    /// Extra peak RSS (MiB) of a raw URLSession delegate streaming the same download to a file.
    private func measureRawDownload(url: URL, configuration: URLSessionConfiguration) throws -> Double {
        let directory = try TransferMemory.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let baseline = ProcessMetrics.residentBytes()
        ProcessMetrics.resetPeak()
        try RawStreamingDownload.run(url, to: directory.appendingPathComponent("raw.bin"), configuration: configuration)
        let peak = ProcessMetrics.peakResidentBytes()
        return Double(max(0, peak - baseline)) / 1_048_576
    }

    /// Extra peak RSS (bytes) of a DataTaskOperation collecting `size` bytes in memory.
    private func measureDataBody(url: URL, size: Int) async throws -> Double {
        let baseline = ProcessMetrics.residentBytes()
        ProcessMetrics.resetPeak()
        let operation = try await DTO.get(url).run()
        let peak = ProcessMetrics.peakResidentBytes()
        guard operation.receivedData.count == size else {
            throw ValidationError("the body was \(operation.receivedData.count) bytes, not \(size)")
        }
        return Double(max(0, peak - baseline))
    }
}
