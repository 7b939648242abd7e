import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NetOps
import NetOpsNIO
import Tracing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `apilayer bench engines`: NetOps on its SwiftNIO engine against raw AsyncHTTPClient, and
/// NetOps on URLSession against raw URLSession, interleaved in one run against one server; then
/// the memory a 1 GiB download and a 1 GiB upload cost on the NIO engine.
struct EnginesBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engines",
        abstract: "Small GETs at c=1/8/64: NIO engine vs raw AsyncHTTPClient vs URLSession; RSS of 1 GiB transfers."
    )

    @OptionGroup var server: BenchServer

    @Option(help: "Requests per round, variant and concurrency.")
    var requests = 2_000

    @Option(help: "Rounds per variant and concurrency (interleaved, the median is reported).")
    var rounds = 3

    @Option(name: .customLong("transfer-mib"), help: "Size of the download and the upload measured for memory, in MiB (0 skips them).")
    var transferMiB = 1_024

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    @Option(
        name: .customLong("only"),
        help:
            "Run only this variant (nio-operation, nio-operation-loop, raw-ahc, raw-ahc-dispatch, urlsession-operation, raw-urlsession, raw-ahc-decompressing, raw-ahc-untraced) at --concurrency, for profiling."
    )
    var onlyVariant: String?

    @Option(help: "The concurrency of an --only run.")
    var concurrency = 1

    func run() async throws {
        let (base, child) = try server.start()
        defer { child?.stop() }
        let smallURL = base.appendingPathComponent("json")
        var onLoop = NIOEngineConfiguration(concurrency: 64)
        onLoop.completionDelivery = .eventLoop
        let nioSession = NetworkSession.nio(configuration: NIOEngineConfiguration(concurrency: 64))
        let nioLoopSession = NetworkSession.nio(configuration: onLoop)
        let urlConfiguration = NetworkSession.defaultConfiguration()
        urlConfiguration.httpMaximumConnectionsPerHost = 64
        let urlSession = NetworkSession(configuration: urlConfiguration)
        let rawURLSession = URLSession(configuration: urlConfiguration)
        var pool = HTTPClient.Configuration.ConnectionPool()
        pool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        let ahc = HTTPClient(
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            configuration: HTTPClient.Configuration(connectionPool: pool))
        // Raw AsyncHTTPClient set to decode gzip and deflate as the NIO engine is: its pipeline
        // carries the decompression handler and its requests offer `Accept-Encoding`.
        var decoding = HTTPClient.Configuration(connectionPool: pool)
        decoding.decompression = .enabled(limit: .ratio(NIOEngineConfiguration().decompressionRatioLimit))
        let ahcDecoding = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: decoding)
        // Raw AsyncHTTPClient without its per-request span, as the NIO engine runs it by default
        // (`NIOEngineConfiguration.makesClientSpans`): the operation's cost with that saving
        // taken out of the comparison.
        var untraced = HTTPClient.Configuration(connectionPool: pool)
        untraced.tracing.tracer = nil
        let ahcUntraced = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: untraced)

        let variants: [EngineVariant] = [
            EngineVariant(name: "nio-operation") { done in
                let operation = DTO.get(smallURL)
                operation.privateSession = nioSession
                operation.onCompletion { _ in done() }.start()
            },
            EngineVariant(name: "nio-operation-loop") { done in
                let operation = DTO.get(smallURL)
                operation.privateSession = nioLoopSession
                operation.onCompletion { _ in done() }.start()
            },
            EngineVariant(name: "raw-ahc") { done in
                ahc.get(url: smallURL.absoluteString).whenComplete { _ in done() }
            },
            // Raw AsyncHTTPClient whose completion is handed to a global dispatch queue, as the
            // NIO engine's default delivery does: what that hand-off alone costs.
            EngineVariant(name: "raw-ahc-dispatch") { done in
                ahc.get(url: smallURL.absoluteString).whenComplete { _ in DispatchQueue.global().async { done() } }
            },
            EngineVariant(name: "urlsession-operation") { done in
                let operation = DTO.get(smallURL)
                operation.privateSession = urlSession
                operation.onCompletion { _ in done() }.start()
            },
            EngineVariant(name: "raw-urlsession") { done in
                rawURLSession.dataTask(with: smallURL) { _, _, _ in done() }.resume()
            },
            EngineVariant(name: "raw-ahc-decompressing") { done in
                ahcDecoding.get(url: smallURL.absoluteString).whenComplete { _ in done() }
            },
            EngineVariant(name: "raw-ahc-untraced") { done in
                ahcUntraced.get(url: smallURL.absoluteString).whenComplete { _ in done() }
            },
        ]

        if let onlyVariant {
            guard let variant = variants.first(where: { $0.name == onlyVariant }) else {
                throw ValidationError("no variant named \(onlyVariant)")
            }
            _ = LoadRound.run(count: 200, concurrency: concurrency, send: variant.send)
            for _ in 0..<rounds {
                let result = LoadRound.run(count: requests, concurrency: concurrency, send: variant.send)
                print(
                    String(
                        format: "%@ c=%d: %.0f req/s, %.3f ms CPU per request", onlyVariant, concurrency, result.requestsPerSecond,
                        result.cpuMillisecondsPerRequest))
            }
            rawURLSession.invalidateAndCancel()
            try await ahc.shutdown()
            try await ahcDecoding.shutdown()
            try await ahcUntraced.shutdown()
            try await nioSession.shutdownNIOEngine()
            try await nioLoopSession.shutdownNIOEngine()
            return
        }

        var figures: [BenchFigure] = []
        var notes: [String] = []
        notes.append("variant               c   req/s     p50 ms  p99 ms  cpu ms/req")
        for concurrency in [1, 8, 64] {
            let results = measure(variants, concurrency: concurrency)
            for (variant, result) in zip(variants, results) {
                let name = variant.name.padding(toLength: 20, withPad: " ", startingAt: 0)
                notes.append(
                    name
                        + String(
                            format: "  %2d  %8.0f  %6.3f  %6.3f  %6.3f", concurrency,
                            result.requestsPerSecond, result.p50Milliseconds, result.p99Milliseconds, result.cpuMillisecondsPerRequest))
            }
            let (nio, nioLoop, rawAHC, rawAHCDispatch, rawURL, rawAHCDecoding, rawAHCUntraced) = (
                results[0], results[1], results[2], results[3], results[5], results[6], results[7]
            )
            figures.append(
                BenchFigure(
                    name: "nio-vs-ahc-c\(concurrency)", value: nio.requestsPerSecond,
                    baseline: rawAHC.requestsPerSecond, unit: "req/s", target: ">= 0.9"))
            figures.append(
                BenchFigure(
                    name: "nio-loop-vs-ahc-c\(concurrency)", value: nioLoop.requestsPerSecond,
                    baseline: rawAHC.requestsPerSecond, unit: "req/s", target: nil))
            figures.append(
                BenchFigure(
                    name: "nio-vs-ahc-dispatch-c\(concurrency)", value: nio.requestsPerSecond,
                    baseline: rawAHCDispatch.requestsPerSecond, unit: "req/s", target: nil))
            figures.append(
                BenchFigure(
                    name: "nio-vs-ahc-decompressing-c\(concurrency)", value: nio.requestsPerSecond,
                    baseline: rawAHCDecoding.requestsPerSecond, unit: "req/s", target: nil))
            figures.append(
                BenchFigure(
                    name: "nio-vs-ahc-untraced-c\(concurrency)", value: nio.requestsPerSecond,
                    baseline: rawAHCUntraced.requestsPerSecond, unit: "req/s", target: nil))
            if concurrency == 64 {
                figures.append(
                    BenchFigure(
                        name: "nio-vs-urlsession-c64", value: nio.requestsPerSecond,
                        baseline: rawURL.requestsPerSecond, unit: "req/s", target: ">= 5"))
                figures.append(
                    BenchFigure(
                        name: "nio-cpu-per-request-c64", value: nio.cpuMillisecondsPerRequest,
                        baseline: rawAHC.cpuMillisecondsPerRequest, unit: "ms", target: "<= 1.15"))
                figures.append(
                    BenchFigure(
                        name: "nio-loop-cpu-per-request-c64", value: nioLoop.cpuMillisecondsPerRequest,
                        baseline: rawAHC.cpuMillisecondsPerRequest, unit: "ms", target: nil))
                figures.append(
                    BenchFigure(
                        name: "nio-cpu-per-request-vs-decompressing-c64", value: nio.cpuMillisecondsPerRequest,
                        baseline: rawAHCDecoding.cpuMillisecondsPerRequest, unit: "ms", target: nil))
                figures.append(
                    BenchFigure(
                        name: "nio-cpu-per-request-vs-untraced-c64", value: nio.cpuMillisecondsPerRequest,
                        baseline: rawAHCUntraced.cpuMillisecondsPerRequest, unit: "ms", target: nil))
            }
        }

        if transferMiB > 0 {
            let size = Int64(transferMiB) << 20
            let label = transferMiB == 1_024 ? "1gib" : "\(transferMiB)mib"
            let download = try await TransferMemory.download(base.appendingPathComponent("bytes/\(size)"), session: nioSession)
            figures.append(
                BenchFigure(
                    name: "nio-download-\(label)-rss-over-baseline", value: download, unit: "MiB", target: "<= 16"))
            let upload = try await TransferMemory.upload(size: size, to: base.appendingPathComponent("upload"), session: nioSession)
            figures.append(
                BenchFigure(
                    name: "nio-upload-\(label)-rss-over-baseline", value: upload, unit: "MiB", target: "<= 16"))
        }

        notes.append("server: \(server.label); \(requests) requests per round, \(rounds) interleaved rounds, medians")
        notes.append(
            "nio-vs-ahc = DataTaskOperation on the NIO engine (default completionDelivery .dispatchQueue) / raw AsyncHTTPClient; nio-vs-urlsession = same / raw URLSession"
        )
        notes.append("nio-loop = the same with completionDelivery .eventLoop (operations end where AsyncHTTPClient completes its own futures)")
        notes.append(
            "nio-vs-ahc-dispatch = the default delivery against raw AsyncHTTPClient whose completion is handed to a global dispatch queue (the same hand-off)"
        )
        notes.append(
            "nio-vs-ahc-decompressing = the default delivery against raw AsyncHTTPClient configured to decode gzip and deflate as the NIO engine is"
        )
        notes.append(
            "nio-vs-ahc-untraced = the default delivery against raw AsyncHTTPClient without its per-request span, as the NIO engine runs it (makesClientSpans false)"
        )
        notes.append("RSS figures: peak resident size over the size before the transfer, DownloadOperation to a file / UploadOperation from a file")
        BenchReport(suite: "engines", figures: figures, notes: notes).print(json: json)
        rawURLSession.invalidateAndCancel()
        try await ahc.shutdown()
        try await ahcDecoding.shutdown()
        try await ahcUntraced.shutdown()
        try await nioSession.shutdownNIOEngine()
        try await nioLoopSession.shutdownNIOEngine()
    }

    /// Runs every variant once per round, in turn, so drift in the machine's load hits all alike.
    private func measure(_ variants: [EngineVariant], concurrency: Int) -> [LoadResult] {
        for variant in variants {
            _ = LoadRound.run(count: 200, concurrency: concurrency, send: variant.send)
        }
        var collected = Array(repeating: [LoadResult](), count: variants.count)
        for _ in 0..<rounds {
            for (index, variant) in variants.enumerated() {
                collected[index].append(LoadRound.run(count: requests, concurrency: concurrency, send: variant.send))
            }
        }
        return collected.map(LoadResult.median)
    }
}

/// One way of sending a small GET; `send` starts one request and calls its argument when done.
struct EngineVariant: Sendable {
    let name: String
    let send: @Sendable (@escaping @Sendable () -> Void) -> Void
}
