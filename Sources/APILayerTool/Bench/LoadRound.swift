import Dispatch
import Foundation
import NetOps

/// Throughput, latency and CPU of one round of requests.
struct LoadResult: Sendable {
    var requestsPerSecond: Double
    var p50Milliseconds: Double
    var p99Milliseconds: Double
    var cpuMillisecondsPerRequest: Double

    /// Each field's median over `results` (taken separately).
    static func median(_ results: [LoadResult]) -> LoadResult {
        func mid(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        return LoadResult(
            requestsPerSecond: mid(results.map(\.requestsPerSecond)),
            p50Milliseconds: mid(results.map(\.p50Milliseconds)),
            p99Milliseconds: mid(results.map(\.p99Milliseconds)),
            cpuMillisecondsPerRequest: mid(results.map(\.cpuMillisecondsPerRequest)))
    }
}

/// Runs a fixed number of requests with a fixed number in flight, timing each.
enum LoadRound {
    /// Runs `count` requests keeping `concurrency` in flight; `send` starts one and calls `done`.
    static func run(count: Int, concurrency: Int, send: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> LoadResult {
        let finished = DispatchSemaphore(value: 0)
        let state = Locked((started: 0, completed: 0, latencies: [UInt64]()))
        state.withLock { $0.latencies.reserveCapacity(count) }
        let startCPU = ProcessMetrics.cpuSeconds()
        let startTime = DispatchTime.now()
        @Sendable func next() {
            let shouldStart = state.withLock { value -> Bool in
                guard value.started < count else { return false }
                value.started += 1
                return true
            }
            guard shouldStart else { return }
            let sentAt = DispatchTime.now().uptimeNanoseconds
            send {
                let took = DispatchTime.now().uptimeNanoseconds - sentAt
                let all = state.withLock { value -> Bool in
                    value.completed += 1
                    value.latencies.append(took)
                    return value.completed == count
                }
                if all { finished.signal() } else { next() }
            }
        }
        for _ in 0..<concurrency { next() }
        finished.wait()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - startTime.uptimeNanoseconds) / 1e9
        let cpu = ProcessMetrics.cpuSeconds() - startCPU
        let latencies = state.withLock { $0.latencies }.sorted()
        func percentile(_ p: Double) -> Double {
            Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]) / 1e6
        }
        return LoadResult(
            requestsPerSecond: Double(count) / seconds, p50Milliseconds: percentile(0.5), p99Milliseconds: percentile(0.99),
            cpuMillisecondsPerRequest: cpu * 1_000 / Double(count))
    }
}

/// Runs a fixed number of awaited requests from a fixed number of tasks, timing each: how a
/// service drives a client from structured concurrency.
enum AsyncLoadRound {
    /// Runs `count` requests from `concurrency` tasks; each task awaits `call` until the count is
    /// reached.
    static func run(count: Int, concurrency: Int, call: @escaping @Sendable () async -> Void) async -> LoadResult {
        let started = Locked(0)
        let startCPU = ProcessMetrics.cpuSeconds()
        let startTime = DispatchTime.now()
        let latencies = await withTaskGroup(of: [UInt64].self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var mine: [UInt64] = []
                    while started.withLock({ value -> Bool in
                        guard value < count else { return false }
                        value += 1
                        return true
                    }) {
                        let sentAt = DispatchTime.now().uptimeNanoseconds
                        await call()
                        mine.append(DispatchTime.now().uptimeNanoseconds - sentAt)
                    }
                    return mine
                }
            }
            return await group.reduce(into: [UInt64]()) { $0 += $1 }
        }.sorted()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - startTime.uptimeNanoseconds) / 1e9
        let cpu = ProcessMetrics.cpuSeconds() - startCPU
        func percentile(_ p: Double) -> Double {
            Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]) / 1e6
        }
        return LoadResult(
            requestsPerSecond: Double(count) / seconds, p50Milliseconds: percentile(0.5), p99Milliseconds: percentile(0.99),
            cpuMillisecondsPerRequest: cpu * 1_000 / Double(count))
    }
}
