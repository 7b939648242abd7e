import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NetOps
import NetOpsHTTP

#if canImport(Glibc)
import Glibc
#endif

/// `apilayer bench gateway`: the example service (Examples/Gateway, a Hummingbird 2 server whose
/// every request makes two APILayer calls) under load, against the same pairs of calls made by
/// the same executable without Hummingbird in front (`Gateway direct`), round by round in turn;
/// then a SIGTERM at full load, and the calls it lost. DemoServer and the gateway run in child
/// processes.
struct GatewayBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "The example service under load against the same calls without Hummingbird, and the calls a SIGTERM at full load loses."
    )

    @Option(help: "The Gateway executable (default: Examples/Gateway built in release by this command).")
    var gateway: String?

    @Option(help: "Seconds of measured load (after --warm-up seconds of the same).")
    var seconds = 10.0

    @Option(help: "Requests in flight at once (and the direct mode's tasks).")
    var concurrency = 64

    @Option(help: "Seconds of load before the measurements (and of the direct mode's calls before its own).")
    var warmUp = 2.0

    @Option(help: "Rounds of the gateway's load and the direct mode in turn; the medians are reported.")
    var rounds = 3

    @Option(help: "in-process (AsyncHTTPClient in this process) or wrk (default: wrk when installed).")
    var load: String?

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    func run() async throws {
        let wrk = Self.wrkPath()
        let useWrk: Bool
        switch load {
        case nil: useWrk = wrk != nil
        case "wrk"?:
            guard wrk != nil else { throw ValidationError("--load wrk: wrk is not installed (Debian's package wrk)") }
            useWrk = true
        case "in-process"?: useWrk = false
        case let other?: throw ValidationError("--load is in-process or wrk, not \(other)")
        }
        let executable = try gateway.map { URL(fileURLWithPath: $0) } ?? Self.buildGateway()
        let demo = try ServerProcess()
        defer { demo.stop() }
        let arguments = ["--demo-url", demo.baseURL.absoluteString, "--log-level", "warning"]

        // The gateway under load, then SIGTERM at full load (the same process).
        let child = try GatewayProcess(executable: executable, arguments: ["--http-port", "0"] + arguments)
        let url = "http://127.0.0.1:\(child.port)/overview/1"
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: Self.clientConfiguration(concurrency))
        // Round by round in turn, so a machine whose speed drifts (another process, a busier
        // host) moves both sides of a round alike.
        var rounds: [(served: LoadCounts, direct: DirectRun)] = []
        let shutdown: ShutdownRun
        do {
            if useWrk, let wrk {
                _ = try Self.wrk(wrk, url: url, concurrency: concurrency, seconds: warmUp)
            } else {
                _ = await Self.load(client, url: url, concurrency: concurrency, for: warmUp)
            }
            for _ in 0..<max(1, self.rounds) {
                let served: LoadCounts
                if useWrk, let wrk {
                    served = try Self.wrk(wrk, url: url, concurrency: concurrency, seconds: seconds)
                } else {
                    served = await Self.load(client, url: url, concurrency: concurrency, for: seconds)
                }
                // The same pairs of calls, from the same executable, without Hummingbird.
                let direct = try Self.direct(
                    executable,
                    arguments: ["direct", "--concurrency", "\(concurrency)", "--seconds", "\(seconds)", "--warm-up", "\(min(warmUp, 1))"] + arguments)
                rounds.append((served, direct))
            }
            shutdown = try await Self.terminateUnderLoad(child, client: client, url: url, concurrency: concurrency)
            try await client.shutdown()
        } catch {
            child.terminate()
            try? await client.shutdown()
            throw error
        }

        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let incoming = rounds.map { Double($0.served.ok) / $0.served.seconds }
        let baselines = rounds.map { $0.direct.callsPerSecond / 2 }
        let ratios = zip(incoming, baselines).map { $0 / $1 }
        let summary = shutdown.summary
        let figures = [
            BenchFigure(
                name: "gateway-vs-direct", value: median(incoming), baseline: median(baselines), ratio: median(ratios), unit: "req/s",
                target: "≥ 0.8"),
            BenchFigure(name: "shutdown-lost-calls", value: Double(summary.lost), unit: "calls", target: "= 0"),
        ]
        let loadName =
            useWrk
            ? "wrk (\(wrk ?? "wrk") -t2 -c\(concurrency), a process of its own)" : "in-process AsyncHTTPClient (\(concurrency) connections)"
        let notes = [
            "gateway-vs-direct: GET /overview/1 answered 200 per second at c=\(concurrency) for \(Self.format(seconds)) s a round, load from \(loadName), "
                + "after \(Self.format(warmUp)) s of warm-up; each request makes two APILayer calls (SampleAPI users.get, TrackerAPI issues/list-for-repo) side by side; "
                + "baseline: half the outgoing calls per second of `Gateway direct` (\(concurrency) tasks making the same pairs in-process, no Hummingbird) right after; "
                + "medians of \(rounds.count) rounds, ratio the median of the rounds' ratios; DemoServer in a child process, the gateway at \(executable.path)",
            "gateway-vs-direct rounds: "
                + rounds.indices.map { index in
                    let round = rounds[index]
                    return "\(Self.format(incoming[index])) vs \(Self.format(baselines[index])) (\(String(format: "%.3f", ratios[index])); "
                        + "non-200 \(round.served.other), errors \(round.served.errors), failed pairs \(round.direct.failedPairs))"
                }.joined(separator: ", "),
            "shutdown-lost-calls: SIGTERM after \(Self.format(shutdown.loadedSeconds)) s at c=\(concurrency), in-process load until the gateway exited; "
                + "API calls started \(summary.started): succeeded \(summary.succeeded), failed \(summary.failed), cancelled \(summary.cancelled), refused \(summary.refused); "
                + "in flight at the SIGTERM \(summary.inFlightAtShutdown), cancelled after the drain \(summary.cancelledByService), unended \(summary.unended); "
                + "the load saw \(shutdown.load.ok) × 200, \(shutdown.load.other) other answers (503 while the APIs drained), \(shutdown.load.errors) errors (after the server closed); "
                + "the gateway exited \(Self.format(shutdown.exitSeconds)) s after the SIGTERM with status \(shutdown.status)",
        ]
        BenchReport(suite: "gateway", figures: figures, notes: notes).print(json: json)
    }

    // MARK: The gateway's build

    /// Examples/Gateway, from the current folder or from this executable's (`.build/…/apilayer`).
    static func gatewayPackage() throws -> URL {
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Examples/Gateway")
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let beside = executable.deletingLastPathComponent().appendingPathComponent("../../../Examples/Gateway").standardized
        for candidate in [here, beside] where FileManager.default.fileExists(atPath: candidate.appendingPathComponent("Package.swift").path) {
            return candidate
        }
        throw ValidationError("Examples/Gateway not found: run from the repository's root, or pass --gateway PATH")
    }

    /// Builds the example in release (its output on standard error) and returns its executable.
    static func buildGateway() throws -> URL {
        let package = try gatewayPackage()
        FileHandle.standardError.write(Data("building the example: swift build -c release --package-path \(package.path)\n".utf8))
        let build = try runSwift(["build", "-c", "release", "--package-path", package.path], output: .standardError)
        guard build.status == 0 else { throw ValidationError("the example's release build failed (status \(build.status))") }
        let binPath = try runSwift(["build", "-c", "release", "--package-path", package.path, "--show-bin-path"], output: nil)
        let folder = String(decoding: binPath.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return URL(fileURLWithPath: folder).appendingPathComponent("Gateway")
    }

    private static func runSwift(_ arguments: [String], output: FileHandle?) throws -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift"] + arguments
        let pipe = Pipe()
        process.standardOutput = output ?? pipe
        try process.run()
        let data = output == nil ? pipe.fileHandleForReading.readDataToEndOfFile() : Data()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }

    // MARK: Load

    /// What a load saw.
    struct LoadCounts: Sendable {
        var ok = 0
        var other = 0
        var errors = 0
        var seconds = 0.0
    }

    static func clientConfiguration(_ concurrency: Int) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = concurrency
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(30))
        return configuration
    }

    /// `concurrency` tasks sending GET `url` one after another for `seconds`.
    static func load(_ client: HTTPClient, url: String, concurrency: Int, for seconds: Double) async -> LoadCounts {
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
        return await load(client, url: url, concurrency: concurrency) { ContinuousClock.now >= deadline }
    }

    /// `concurrency` tasks sending GET `url` one after another until `done()`; after an error a
    /// task pauses 5 ms, so a closed server is not hammered.
    static func load(_ client: HTTPClient, url: String, concurrency: Int, until done: @escaping @Sendable () -> Bool) async -> LoadCounts {
        let clock = ContinuousClock()
        let started = clock.now
        var total = await withTaskGroup(of: LoadCounts.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var counts = LoadCounts()
                    let request = HTTPClientRequest(url: url)
                    while !done() {
                        do {
                            let response = try await client.execute(request, timeout: .seconds(30))
                            _ = try await response.body.collect(upTo: 1 << 20)
                            if response.status == .ok { counts.ok += 1 } else { counts.other += 1 }
                        } catch {
                            counts.errors += 1
                            try? await Task.sleep(for: .milliseconds(5))
                        }
                    }
                    return counts
                }
            }
            return await group.reduce(into: LoadCounts()) { total, counts in
                total.ok += counts.ok
                total.other += counts.other
                total.errors += counts.errors
            }
        }
        let elapsed = started.duration(to: clock.now)
        total.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return total
    }

    static func wrkPath() -> String? {
        ["/usr/bin/wrk", "/usr/local/bin/wrk"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// One wrk run (two threads, `concurrency` connections).
    static func wrk(_ path: String, url: String, concurrency: Int, seconds: Double) throws -> LoadCounts {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-t2", "-c\(concurrency)", "-d\(max(1, Int(seconds.rounded())))s", "--timeout", "30s", url]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // "  123456 requests in 10.00s, 45.67MB read", "  Non-2xx or 3xx responses: 12",
        // "  Socket errors: connect 0, read 0, write 0, timeout 0"
        var counts = LoadCounts()
        var requests = 0
        for line in text.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let words = line.split(separator: " ")
            if line.contains(" requests in "), words.count >= 4 {
                requests = Int(words[0]) ?? 0
                counts.seconds = Double(words[3].dropLast(words[3].hasSuffix("s,") ? 2 : 1)) ?? 0
            } else if line.hasPrefix("Non-2xx or 3xx responses:") {
                counts.other = Int(words.last ?? "") ?? 0
            } else if line.hasPrefix("Socket errors:") {
                counts.errors = line.split(separator: ",").compactMap { Int($0.split(separator: " ").last ?? "") }.reduce(0, +)
            }
        }
        guard requests > 0, counts.seconds > 0 else { throw ValidationError("wrk printed no result:\n\(text)") }
        counts.ok = requests - counts.other
        return counts
    }

    // MARK: Shutdown

    /// What the gateway printed when it exited.
    struct GatewaySummary: Decodable {
        var requests: Int
        var started: Int
        var succeeded: Int
        var failed: Int
        var cancelled: Int
        var refused: Int
        var lost: Int
        var inFlightAtShutdown: Int
        var cancelledByService: Int
        var unended: Int
    }

    struct ShutdownRun {
        var summary: GatewaySummary
        var load: LoadCounts
        var loadedSeconds: Double
        var exitSeconds: Double
        var status: Int32
    }

    /// Loads the gateway, sends SIGTERM after two seconds, keeps loading until it exits and
    /// reads the summary it printed.
    static func terminateUnderLoad(_ child: GatewayProcess, client: HTTPClient, url: String, concurrency: Int) async throws -> ShutdownRun {
        let loadedSeconds = 2.0
        let loading = Task { await load(client, url: url, concurrency: concurrency) { child.hasExited } }
        try await Task.sleep(for: .milliseconds(Int(loadedSeconds * 1000)))
        let clock = ContinuousClock()
        let signalled = clock.now
        child.terminate()
        let status = await child.exit()
        let exitElapsed = signalled.duration(to: clock.now)
        let counts = await loading.value
        guard let line = child.lines().last(where: { $0.hasPrefix("{") }) else {
            throw ValidationError("the gateway printed no summary (exit status \(status))")
        }
        let summary = try JSONDecoder().decode(GatewaySummary.self, from: Data(line.utf8))
        let exitSeconds = Double(exitElapsed.components.seconds) + Double(exitElapsed.components.attoseconds) / 1e18
        return ShutdownRun(summary: summary, load: counts, loadedSeconds: loadedSeconds, exitSeconds: exitSeconds, status: status)
    }

    // MARK: Direct

    /// What `Gateway direct` printed.
    struct DirectRun: Decodable {
        var concurrency: Int
        var seconds: Double
        var pairs: Int
        var failedPairs: Int
        var calls: Int
        var callsPerSecond: Double
    }

    static func direct(_ executable: URL, arguments: [String]) throws -> DirectRun {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let line = text.split(separator: "\n").last(where: { $0.hasPrefix("{") }) else {
            throw ValidationError("Gateway direct failed (status \(process.terminationStatus)): \(text)")
        }
        return try JSONDecoder().decode(DirectRun.self, from: Data(line.utf8))
    }

    private static func format(_ value: Double) -> String {
        value >= 100 ? String(Int(value.rounded())) : String(format: "%.2f", value)
    }
}

/// The gateway in a child process: started with `--http-port 0`, its port read from the
/// `listening on PORT` line it prints, the rest of its standard output kept.
///
/// Unchecked: its `Process` is started in `init` and afterwards only signalled and read for its
/// identifier and exit status; everything that changes is in `state`.
final class GatewayProcess: @unchecked Sendable {
    private let process: Process
    private let output: Pipe
    private let state = Locked((lines: [String](), exited: false, waiters: [CheckedContinuation<Int32, Never>]()))
    /// The port it listens on.
    let port: Int

    init(executable: URL, arguments: [String]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        self.process = process
        self.output = output
        try process.run()
        let (port, text) = ServerProcess.listeningPort(on: output)
        guard let port else {
            process.terminate()
            throw ValidationError("the gateway did not start: '\(text)'")
        }
        self.port = port
        // The rest of its output, read on a thread of its own until it exits.
        Thread { self.readUntilExit() }.start()
    }

    private func readUntilExit() {
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: rest, as: UTF8.self).split(separator: "\n").map(String.init)
        let waiters = state.withLock { state -> [CheckedContinuation<Int32, Never>] in
            state.lines = lines
            state.exited = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: process.terminationStatus) }
    }

    /// Whether it has exited.
    var hasExited: Bool { state.withLock { $0.exited } }

    /// What it printed after the `listening on` line (complete once it exited).
    func lines() -> [String] { state.withLock { $0.lines } }

    /// Sends SIGTERM.
    func terminate() {
        kill(process.processIdentifier, SIGTERM)
    }

    /// Waits until it exits; its status.
    func exit() async -> Int32 {
        await withCheckedContinuation { waiter in
            let exited = state.withLock { state -> Bool in
                if !state.exited { state.waiters.append(waiter) }
                return state.exited
            }
            if exited { waiter.resume(returning: process.terminationStatus) }
        }
    }
}
