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

    @Option(help: "Size of the download measured for memory and throughput, in MiB.")
    var downloadMiB = 1_024

    @Option(help: "Rounds of the large download per variant (interleaved; RSS: the highest, throughput: the median).")
    var downloadRounds = 3

    @Option(name: .customLong("segment-mib"), help: "Length of the URLSession engine's download segments, in MiB.")
    var segmentMiB = 2

    @Option(
        name: .customLong("give-back-every"), help: "Segments after which a download gives its freed memory back (0: never; default: the engine's).")
    var giveBackEvery: Int?

    @Flag(help: "Also measure the other download candidates (URLSession's download task), for Docs/benchmarks.md.")
    var downloadCandidates = false

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    func run() async throws {
        let bodySize = 50 << 20
        let (base, stop) = try server.start(files: [
            "bytes/\(bodySize)": Int64(bodySize), "bytes/\(Int64(downloadMiB) << 20)": Int64(downloadMiB) << 20,
        ])
        defer { stop?() }
        let smallURL = base.appendingPathComponent("json")
        let configuration = NetworkSession.defaultConfiguration()
        configuration.httpMaximumConnectionsPerHost = 64
        let session = NetworkSession(configuration: configuration)
        let raw = URLSession(configuration: configuration)

        var figures: [BenchFigure] = []
        var notes: [String] = []
        for concurrency in [1, 8, 64] {
            let result = measureThroughput(url: smallURL, concurrency: concurrency, raw: raw, session: session)
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

        let downloads = try await measureDownloads(base: base, configuration: configuration)
        figures.append(contentsOf: downloads.figures)
        notes.append(contentsOf: downloads.notes)

        let extra = try await measureDataBody(url: base.appendingPathComponent("bytes/\(bodySize)"), size: bodySize)
        figures.append(
            BenchFigure(
                name: "data-50mib-rss-over-baseline", value: extra / 1_048_576, baseline: Double(bodySize) / 1_048_576,
                ratio: extra / Double(bodySize), unit: "MiB", target: "<= 1.1"))

        notes.append("server: \(server.label); \(requests) requests per round, \(rounds) interleaved rounds, medians")
        notes.append("throughput/cpu ratio = DataTaskOperation / raw URLSession (same configuration, completion-handler tasks)")
        notes.append(
            "download rss baseline = a raw URLSession data task whose delegate streams chunks to a file (FoundationNetworking's own buffering)")
        notes.append(
            "download throughput baseline = the same DownloadOperation fetched in one request (no segments), interleaved round by round")
        BenchReport(suite: "netops", figures: figures, notes: notes).print(json: json)
        raw.invalidateAndCancel()
    }

    /// Alternates raw and NetOps rounds so drift in the machine's load hits both alike.
    private func measureThroughput(url: URL, concurrency: Int, raw: URLSession, session: NetworkSession) -> (ours: LoadResult, raw: LoadResult) {
        let sendRaw: @Sendable (@escaping @Sendable () -> Void) -> Void = { done in
            raw.dataTask(with: url) { _, _, _ in done() }.resume()
        }
        let sendOurs: @Sendable (@escaping @Sendable () -> Void) -> Void = { done in
            let operation = DTO.get(url)
            operation.privateSession = session
            operation.onCompletion { _ in done() }.start()
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

    /// The large download's figures: RSS over the raw streaming baseline, and throughput of the
    /// segmented `DownloadOperation` against the same operation fetched in one request.
    private func measureDownloads(base: URL, configuration: URLSessionConfiguration) async throws -> (figures: [BenchFigure], notes: [String]) {
        let size = Int64(downloadMiB) << 20
        let url = base.appendingPathComponent("bytes/\(size)")
        let label = downloadMiB == 1_024 ? "1gib" : "\(downloadMiB)mib"
        let segmented = NetworkSession(
            configuration: configuration, downloadSegmentLength: Int64(segmentMiB) << 20, giveBackEvery: giveBackEvery)
        let whole = NetworkSession(configuration: configuration, downloadSegmentLength: nil)

        let raw = try measureRaw(url: url, size: size, configuration: configuration, run: RawStreamingDownload.run)
        var ours: [TransferFigures] = []
        var oneRequest: [TransferFigures] = []
        var task: [TransferFigures] = []
        for _ in 0..<max(1, downloadRounds) {
            oneRequest.append(try await TransferMemory.timedDownload(url, session: whole, expectedSize: size))
            ours.append(try await TransferMemory.timedDownload(url, session: segmented, expectedSize: size))
            if downloadCandidates {
                task.append(try measureRaw(url: url, size: size, configuration: configuration, run: RawFileDownload.run))
            }
        }
        let throughput = { (runs: [TransferFigures]) in Self.median(runs.map { $0.megabytesPerSecond(size) }) }
        let peak = { (runs: [TransferFigures]) in runs.map(\.rssMiB).max() ?? 0 }
        var figures = [
            BenchFigure(name: "download-\(label)-rss-over-baseline", value: peak(ours), baseline: raw.rssMiB, unit: "MiB", target: "<= 16"),
            BenchFigure(
                name: "download-\(label)-throughput", value: throughput(ours), baseline: throughput(oneRequest), unit: "MB/s", target: ">= 0.90"),
        ]
        var notes = [
            "download \(label): \(segmentMiB) MiB segments; \(max(1, downloadRounds)) interleaved rounds (RSS: highest, MB/s: median)",
            String(
                format: "download \(label) in one request: %.1f MiB over baseline, %.1f MB/s; raw streaming: %.1f MiB, %.1f MB/s",
                peak(oneRequest), throughput(oneRequest), raw.rssMiB, raw.megabytesPerSecond(size)),
            "download \(label) in segments, each round: "
                + ours.map { String(format: "%.1f MiB, %.0f MB/s", $0.rssMiB, $0.megabytesPerSecond(size)) }.joined(separator: "; "),
        ]
        if downloadCandidates {
            figures.append(
                BenchFigure(name: "download-\(label)-task-rss-over-baseline", value: peak(task), baseline: raw.rssMiB, unit: "MiB"))
            figures.append(
                BenchFigure(name: "download-\(label)-task-throughput", value: throughput(task), baseline: throughput(oneRequest), unit: "MB/s"))
            notes.append("download-\(label)-task = a raw URLSession download task (FoundationNetworking's temporary file, then moved into place)")
        }
        return (figures, notes)
    }

    /// Extra peak RSS (MiB) and time of a raw URLSession client downloading `url` to a file.
    private func measureRaw(
        url: URL, size: Int64, configuration: URLSessionConfiguration, run: (URL, URL, URLSessionConfiguration) throws -> Void
    ) throws -> TransferFigures {
        let directory = try TransferMemory.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("raw.bin")
        ProcessMetrics.returnFreedMemory()
        let baseline = ProcessMetrics.residentBytes()
        ProcessMetrics.resetPeak()
        let started = ContinuousClock.now
        try run(url, file, configuration)
        let elapsed = ContinuousClock.now - started
        let peak = ProcessMetrics.peakResidentBytes()
        try TransferMemory.checkSize(of: file, size)
        return TransferFigures(rssMiB: Double(max(0, peak - baseline)) / 1_048_576, seconds: elapsed.seconds)
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// Extra peak RSS (bytes) of a DataTaskOperation collecting `size` bytes in memory.
    private func measureDataBody(url: URL, size: Int) async throws -> Double {
        // From a trimmed heap, as every other transfer here: else the body reuses what the
        // downloads before it left free, and the figure says more about them than about it.
        ProcessMetrics.returnFreedMemory()
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
