import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NetOps
import NetOpsNIO
import RawBaselines
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

    @Option(
        name: .customLong("transfer-mib"),
        help: "Size of the download and the upload measured for memory (with --server nginx-tls: of the stream), in MiB (0 skips them).")
    var transferMiB = 1_024

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    @Option(
        name: .customLong("only"),
        help:
            "Run only this variant (nio-operation, nio-operation-loop, raw-ahc, raw-ahc-dispatch, urlsession-operation, raw-urlsession, raw-ahc-decompressing, raw-ahc-untraced, raw-ahc-async, nio-run, raw-ahc-delegate-async) at --concurrency, for profiling; several, separated by commas, are measured in turn round by round."
    )
    var onlyVariant: String?

    @Option(help: "The concurrency of an --only run.")
    var concurrency = 1

    @Option(name: .customLong("handshake-requests"), help: "With --server nginx-tls: the requests whose TLS connections tls-handshakes counts.")
    var handshakeRequests = 2_000

    func run() async throws {
        if server.server == .nginxTLS, server.url == nil {
            try await TLSEnginesBench(
                requests: requests, rounds: rounds, handshakeRequests: handshakeRequests, streamMiB: transferMiB, json: json
            ).run()
            return
        }
        let (base, stop) = try server.start()
        defer { stop?() }
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
            // What a Swift 6 service writes by hand: AsyncHTTPClient's async API, body collected.
            EngineVariant(name: "raw-ahc-async") {
                let request = HTTPClientRequest(url: smallURL.absoluteString)
                if let response = try? await ahc.execute(request, timeout: .seconds(30)) {
                    _ = try? await response.body.collect(upTo: 1 << 20)
                }
            },
            // An awaited DataTaskOperation on the NIO engine, default configuration.
            EngineVariant(name: "nio-run") {
                let operation = DTO.get(smallURL)
                operation.privateSession = nioSession
                _ = try? await operation.run()
            },
            // AsyncHTTPClient's delegate API awaited, the API the NIO engine is built on.
            EngineVariant(name: "raw-ahc-delegate-async") {
                if let request = try? HTTPClient.Request(url: smallURL) {
                    _ = await RawCollectingDelegate.get(ahc, request)
                }
            },
        ]

        if let onlyVariant {
            // One variant, or several separated by commas measured in turn round by round (an
            // A/B comparison that drift in the machine's load hits alike).
            let chosen = try onlyVariant.split(separator: ",").map { name in
                guard let variant = variants.first(where: { $0.name == name }) else {
                    throw ValidationError("no variant named \(name)")
                }
                return variant
            }
            for variant in chosen { _ = await variant.round(count: 200, concurrency: concurrency) }
            var totals = Array(repeating: (requests: 0.0, cpu: 0.0, seconds: 0.0), count: chosen.count)
            for _ in 0..<rounds {
                for (index, variant) in chosen.enumerated() {
                    let result = await variant.round(count: requests, concurrency: concurrency)
                    totals[index].cpu += result.cpuMillisecondsPerRequest * Double(requests)
                    totals[index].seconds += Double(requests) / result.requestsPerSecond
                    totals[index].requests += Double(requests)
                    print(
                        String(
                            format: "%@ c=%d: %.0f req/s, %.3f ms CPU per request", variant.name, concurrency, result.requestsPerSecond,
                            result.cpuMillisecondsPerRequest))
                }
            }
            if chosen.count > 1 {
                for (variant, total) in zip(chosen, totals) {
                    print(
                        String(
                            format: "all rounds, %@ c=%d: %.0f req/s, %.4f ms CPU per request", variant.name, concurrency,
                            total.requests / total.seconds, total.cpu / total.requests))
                }
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
            let results = await measure(variants, concurrency: concurrency)
            for (variant, result) in zip(variants, results) {
                let name = variant.name.padding(toLength: 20, withPad: " ", startingAt: 0)
                notes.append(
                    name
                        + String(
                            format: "  %2d  %8.0f  %6.3f  %6.3f  %6.3f", concurrency,
                            result.requestsPerSecond, result.p50Milliseconds, result.p99Milliseconds, result.cpuMillisecondsPerRequest))
            }
            let (nio, nioLoop, rawAHC, rawAHCDispatch, rawURL, rawAHCDecoding, rawAHCUntraced, rawAHCAsync, nioRun, rawAHCDelegate) = (
                results[0], results[1], results[2], results[3], results[5], results[6], results[7], results[8], results[9], results[10]
            )
            figures.append(
                BenchFigure(
                    name: "nio-run-vs-ahc-c\(concurrency)", value: nioRun.requestsPerSecond,
                    baseline: rawAHC.requestsPerSecond, unit: "req/s", target: ">= 0.9"))
            figures.append(
                BenchFigure(
                    name: "nio-run-vs-ahc-async-c\(concurrency)", value: nioRun.requestsPerSecond,
                    baseline: rawAHCAsync.requestsPerSecond, unit: "req/s", target: ">= 1.0"))
            figures.append(
                BenchFigure(
                    name: "ahc-delegate-vs-async-c\(concurrency)", value: rawAHCDelegate.requestsPerSecond,
                    baseline: rawAHCAsync.requestsPerSecond, unit: "req/s", target: nil))
            // The ceiling of nio-run-vs-ahc-cN: an awaited call written by hand against the futures.
            figures.append(
                BenchFigure(
                    name: "ahc-async-vs-ahc-c\(concurrency)", value: rawAHCAsync.requestsPerSecond,
                    baseline: rawAHC.requestsPerSecond, unit: "req/s", target: nil))
            figures.append(
                BenchFigure(
                    name: "nio-vs-ahc-c\(concurrency)", value: nio.requestsPerSecond,
                    baseline: rawAHC.requestsPerSecond, unit: "req/s", target: nil))
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
                        name: "nio-cpu-per-request-c64", value: nioRun.cpuMillisecondsPerRequest,
                        baseline: rawAHCAsync.cpuMillisecondsPerRequest, unit: "ms", target: "<= 1.1"))
                figures.append(
                    BenchFigure(
                        name: "nio-run-cpu-per-request-vs-ahc-c64", value: nioRun.cpuMillisecondsPerRequest,
                        baseline: rawAHC.cpuMillisecondsPerRequest, unit: "ms", target: "<= 1.0"))
                figures.append(
                    BenchFigure(
                        name: "nio-completion-cpu-per-request-c64", value: nio.cpuMillisecondsPerRequest,
                        baseline: rawAHC.cpuMillisecondsPerRequest, unit: "ms", target: nil))
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

        figures.append(
            BenchFigure(
                name: "memory-per-queued-operation", value: Self.kibPerQueuedOperation(smallURL, session: nioSession), unit: "KiB",
                target: "<= 2"))

        if transferMiB > 0, server.servesDemoRoutes {
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

        if transferMiB > 0, !server.servesDemoRoutes {
            notes.append("transfers: measured only against DemoServer (it serves /bytes and /upload); run without --server nginx or --url")
        }
        notes.append("server: \(server.label); \(requests) requests per round, \(rounds) interleaved rounds, medians")
        notes.append(
            "nio-run = an awaited DataTaskOperation (run()) on the NIO engine, default configuration, from \(requests) requests spread over N tasks; raw-ahc-async = AsyncHTTPClient's execute(_:timeout:) + body.collect(upTo:) from the same tasks"
        )
        notes.append(
            "ahc-async-vs-ahc = raw-ahc-async / raw-ahc (futures, each request started in the previous one's completion on its loop): what any awaited call reaches of the futures, two thread wake-ups per request against none (nio-run-vs-ahc = nio-run-vs-ahc-async × ahc-async-vs-ahc)"
        )
        notes.append(
            "ahc-delegate-vs-async = AsyncHTTPClient's delegate API (the one the NIO engine is built on: execute(request:delegate:), the future awaited) / its async API, from the same tasks"
        )
        notes.append(
            "nio-cpu-per-request-c64 = CPU per request of nio-run / raw-ahc-async; nio-run-cpu-per-request-vs-ahc-c64 = the same / raw AsyncHTTPClient futures; nio-completion-cpu-per-request-c64 = the completion-handler path / raw AsyncHTTPClient futures"
        )
        notes.append(
            "memory-per-queued-operation = RSS growth per DataTaskOperation, 20 000 made and queued on a suspended OperationQueue, in KiB"
        )
        notes.append(
            "nio-vs-ahc = DataTaskOperation on the NIO engine with a completion handler (default completionDelivery .dispatchQueue) / raw AsyncHTTPClient; nio-vs-urlsession = same / raw URLSession"
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
    private func measure(_ variants: [EngineVariant], concurrency: Int) async -> [LoadResult] {
        await Self.measure(variants, concurrency: concurrency, requests: requests, rounds: rounds)
    }

    /// `rounds` rounds of `requests` requests per variant at `concurrency`, the variants in turn
    /// in each round after a warm-up of 200; the median of each.
    static func measure(_ variants: [EngineVariant], concurrency: Int, requests: Int, rounds: Int) async -> [LoadResult] {
        for variant in variants {
            _ = await variant.round(count: 200, concurrency: concurrency)
        }
        var collected = Array(repeating: [LoadResult](), count: variants.count)
        for _ in 0..<rounds {
            for (index, variant) in variants.enumerated() {
                collected[index].append(await variant.round(count: requests, concurrency: concurrency))
            }
        }
        return collected.map(LoadResult.median)
    }

    /// KiB of resident memory each `DataTaskOperation` costs while it waits in a queue: 20 000
    /// made and added to a suspended `OperationQueue`, then cancelled.
    static func kibPerQueuedOperation(_ url: URL, session: NetworkSession) -> Double {
        let count = 20_000
        let queue = OperationQueue()
        queue.isSuspended = true
        ProcessMetrics.returnFreedMemory()
        let before = ProcessMetrics.residentBytes()
        var operations: [DTO] = []
        operations.reserveCapacity(count)
        for _ in 0..<count {
            let operation = DTO.get(url)
            operation.privateSession = session
            operations.append(operation)
        }
        queue.addOperations(operations, waitUntilFinished: false)
        let after = ProcessMetrics.residentBytes()
        queue.cancelAllOperations()
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        return Double(after - before) / Double(count) / 1_024
    }
}

/// One way of sending a small GET: `send` starts one request and calls its argument when done
/// (driven from callbacks), or `call` awaits one (driven from tasks).
struct EngineVariant: Sendable {
    let name: String
    private let send: (@Sendable (@escaping @Sendable () -> Void) -> Void)?
    private let call: (@Sendable () async -> Void)?

    /// A variant driven by callbacks.
    init(name: String, send: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.name = name
        self.send = send
        self.call = nil
    }

    /// A variant awaited from `concurrency` tasks.
    init(name: String, call: @escaping @Sendable () async -> Void) {
        self.name = name
        self.send = nil
        self.call = call
    }

    /// One round of `count` requests with `concurrency` in flight. A callback round blocks a
    /// thread of its own while it waits, never one of the cooperative pool's.
    func round(count: Int, concurrency: Int) async -> LoadResult {
        if let call { return await AsyncLoadRound.run(count: count, concurrency: concurrency, call: call) }
        guard let send else { fatalError("a variant sends or calls") }
        return await withCheckedContinuation { (continuation: CheckedContinuation<LoadResult, Never>) in
            Thread.detachNewThread {
                continuation.resume(returning: LoadRound.run(count: count, concurrency: concurrency, send: send))
            }
        }
    }
}
