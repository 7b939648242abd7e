import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NetOps
import NetOpsNIO

/// `apilayer bench engines --server nginx-tls`: against a private nginx over TLS that offers
/// HTTP/2, awaited operations on the NIO engine over HTTP/2 and over HTTP/1.1 against raw
/// AsyncHTTPClient over HTTP/2, interleaved at c=64; then how many TLS connections 2 000
/// requests (`--handshake-requests`) at c=8 open when each carries an API scope's own
/// `TLSSettings`; and before them, a body of `--transfer-mib` (1 GiB) read chunk by chunk through a
/// `StreamingOperation` over HTTP/2, against AsyncHTTPClient's own streamed body.
struct TLSEnginesBench {
    let requests: Int
    let rounds: Int
    let handshakeRequests: Int
    let streamMiB: Int
    let json: Bool

    func run() async throws {
        let streamSize = Int64(max(0, streamMiB)) << 20
        let nginx = try NginxServer(files: streamSize > 0 ? ["stream.bin": streamSize] : [:], tls: true)
        defer { nginx.stop() }
        guard let authority = nginx.certificateAuthority else { throw NginxServer.Failure(description: "nginx runs without TLS") }
        let url = nginx.baseURL.appendingPathComponent("json")
        let tls = try TLSSettings(trustRoots: .only(.file(authority.path)))

        var configuration = NIOEngineConfiguration(concurrency: 64)
        configuration.tls = tls
        let session = NetworkSession.nio(configuration: configuration)
        var settings = HTTPClient.Configuration()
        settings.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        settings.tlsConfiguration = try tls.nioBuild.configuration.get()
        settings.httpVersion = .automatic
        let ahc = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: settings)

        // The stream first, from a fresh heap (the load rounds below grow it, and a read after
        // them reuses what they left), in a session and a client of its own, so the load
        // figures see connections that carried nothing else.
        var streamFigures: [BenchFigure] = []
        var streamNotes: [String] = []
        if streamSize > 0 {
            let streamURL = nginx.baseURL.appendingPathComponent("stream.bin")
            let label = streamMiB == 1_024 ? "1gib" : "\(streamMiB)mib"
            let streamSession = NetworkSession.nio(configuration: configuration)
            let streamClient = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: settings)
            var http1 = configuration
            http1.allowsHTTP2 = false
            let http1Session = NetworkSession.nio(configuration: http1)
            // A warm-up, then three of each in turn; the medians. The peak moves by a few MiB from
            // run to run with where the allocator's per-thread arenas put the chunks.
            _ = try await StreamMemory.operation(streamURL, session: streamSession, expectedSize: streamSize)
            var (rawRuns, streamedRuns, http1Runs) = ([TransferFigures](), [TransferFigures](), [TransferFigures]())
            for _ in 0..<3 {
                rawRuns.append(try await StreamMemory.rawAsyncHTTPClient(streamURL, client: streamClient, expectedSize: streamSize))
                streamedRuns.append(try await StreamMemory.operation(streamURL, session: streamSession, expectedSize: streamSize))
                http1Runs.append(try await StreamMemory.operation(streamURL, session: http1Session, expectedSize: streamSize))
            }
            let (raw, streamed, overHTTP1) = (
                TransferFigures.median(rawRuns), TransferFigures.median(streamedRuns), TransferFigures.median(http1Runs)
            )
            let mebibytes = Double(streamSize) / 1_048_576
            streamFigures = [
                BenchFigure(name: "stream-\(label)-rss-over-baseline", value: streamed.rssMiB, unit: "MiB", target: "<= 16"),
                BenchFigure(name: "raw-ahc-stream-\(label)-rss-over-baseline", value: raw.rssMiB, unit: "MiB", target: nil),
                BenchFigure(name: "stream-h1-\(label)-rss-over-baseline", value: overHTTP1.rssMiB, unit: "MiB", target: nil),
                BenchFigure(
                    name: "stream-vs-ahc-throughput", value: mebibytes / streamed.seconds, baseline: mebibytes / raw.seconds, unit: "MiB/s",
                    target: nil),
            ]
            streamNotes = [
                "stream-\(label) = a StreamingOperation over HTTP/2 (default 1 MiB buffer) read chunk by chunk, nothing kept: peak RSS over the RSS before it, the median of three runs (each figure's RSS and time medians apart); AsyncHTTPClient lets an HTTP/2 stream's window grow to 8 MiB",
                "raw-ahc-stream = AsyncHTTPClient's execute(_:timeout:) and its response body's chunks, same TLS settings; stream-h1 = the StreamingOperation kept on HTTP/1.1",
            ]
            try await streamClient.shutdown()
            try await streamSession.shutdownNIOEngine()
            try await http1Session.shutdownNIOEngine()
        }

        let variants: [EngineVariant] = [
            EngineVariant(name: "nio-run-h2") {
                let operation = DTO.get(url)
                operation.privateSession = session
                _ = try? await operation.run()
            },
            EngineVariant(name: "nio-run-h1") {
                let operation = DTO.get(url)
                operation.privateSession = session
                operation.allowsHTTP2 = false
                _ = try? await operation.run()
            },
            EngineVariant(name: "raw-ahc-h2") { done in
                ahc.get(url: url.absoluteString).whenComplete { _ in done() }
            },
        ]
        let concurrency = 64
        let results = await EnginesBench.measure(variants, concurrency: concurrency, requests: requests, rounds: rounds)
        let (h2, h1, raw) = (results[0], results[1], results[2])

        let handshakes = try await Self.handshakes(handshakeRequests, url: url, nginx: nginx, tls: tls, allowsHTTP2: true)
        let http1Handshakes = try await Self.handshakes(handshakeRequests, url: url, nginx: nginx, tls: tls, allowsHTTP2: false)

        var notes = ["variant          c   req/s     p50 ms  p99 ms  cpu ms/req"]
        for (variant, result) in zip(variants, results) {
            notes.append(
                variant.name.padding(toLength: 15, withPad: " ", startingAt: 0)
                    + String(
                        format: "  %2d  %8.0f  %6.3f  %6.3f  %6.3f", concurrency, result.requestsPerSecond, result.p50Milliseconds,
                        result.p99Milliseconds, result.cpuMillisecondsPerRequest))
        }
        notes.append("server: a private nginx (2 workers) over TLS 1.3 with HTTP/2 offered; \(requests) requests per round, \(rounds) rounds")
        notes.append("nio-run-h2/h1 = an awaited DataTaskOperation on the NIO engine, HTTP/2 allowed / kept on HTTP/1.1 (allowsHTTP2 false)")
        notes.append("raw-ahc-h2 = AsyncHTTPClient's get(url:) futures, httpVersion .automatic, the same TLS configuration")
        notes.append(
            "tls-handshakes = distinct connections in nginx's access log for \(handshakeRequests) requests at c=8, each operation carrying the TLSSettings an API scope gives it (a fresh session); -h1 = the same kept on HTTP/1.1"
        )
        notes += streamNotes
        let figures =
            streamFigures + [
                BenchFigure(
                    name: "nio-h2-vs-ahc-h2-c64", value: h2.requestsPerSecond, baseline: raw.requestsPerSecond, unit: "req/s", target: ">= 0.9"),
                BenchFigure(name: "nio-h2-vs-h1-c64", value: h2.requestsPerSecond, baseline: h1.requestsPerSecond, unit: "req/s", target: nil),
                BenchFigure(name: "tls-handshakes", value: Double(handshakes), unit: "connections", target: "<= 16"),
                BenchFigure(name: "tls-handshakes-h1", value: Double(http1Handshakes), unit: "connections", target: nil),
            ]
        BenchReport(suite: "engines-tls", figures: figures, notes: notes).print(json: json)
        try await ahc.shutdown()
        try await session.shutdownNIOEngine()
    }

    /// New TLS connections nginx saw while `count` requests ran at c=8 in a fresh session, each
    /// request with `tls` of its own as an API scope's operations carry it, HTTP/2 allowed or not.
    static func handshakes(_ count: Int, url: URL, nginx: NginxServer, tls: TLSSettings, allowsHTTP2: Bool) async throws -> Int {
        let session = NetworkSession.nio(configuration: NIOEngineConfiguration(concurrency: 8))
        let before = nginx.connectionsSeen()
        _ = await AsyncLoadRound.run(count: count, concurrency: 8) {
            let operation = DTO.get(url)
            operation.privateSession = session
            operation.tlsSettings = tls
            operation.allowsHTTP2 = allowsHTTP2
            _ = try? await operation.run()
        }
        try await session.shutdownNIOEngine()
        // nginx writes each line when the request ends; give the last ones a moment.
        try await Task.sleep(for: .milliseconds(200))
        return nginx.connectionsSeen() - before
    }
}
