import Foundation
import Metrics
import NetOps

/// A metrics backend for a scope under load (a chaos run's, `apilayer bench soak`'s): counters
/// summed by label and one dimension (`outcome`, `reason` or `state`), so that the run can say
/// how often the cache, the coalescer, the rate limiter and the breaker acted. Timers, meters
/// and recorders are dropped: a backend that kept every value would grow with the run and hide
/// what a soak measures.
///
/// ```swift
/// let metrics = CountingMetrics()
/// configuration.metricsFactory = metrics
/// …
/// let hits = metrics.total("apilayer.cache.lookups", "outcome", "hit")
/// ```
public final class CountingMetrics: MetricsFactory, Sendable {
    private let counters = Locked([String: CountingMetricsCounter]())

    /// An empty backend.
    public init() {}

    /// The total of the counters labelled `label`: all of them, or those whose `dimension` is
    /// `value`.
    public func total(_ label: String, _ dimension: String? = nil, _ value: String = "") -> Int64 {
        counters.withLock { counters in
            counters.reduce(0) { sum, entry in
                let counted = dimension.map { entry.key == "\(label){\($0)=\(value)}" } ?? (entry.key == label || entry.key.hasPrefix(label + "{"))
                return counted ? sum + entry.value.value : sum
            }
        }
    }

    /// A counter summed with every other of the same label and kept dimension.
    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        let kept = dimensions.first { ["outcome", "reason", "state"].contains($0.0) }
        let key = kept.map { "\(label){\($0.0)=\($0.1)}" } ?? label
        return counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = CountingMetricsCounter()
            counters[key] = counter
            return counter
        }
    }

    /// Dropped.
    public func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        NOOPMetricsHandler.instance
    }

    /// Dropped.
    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        NOOPMetricsHandler.instance
    }

    /// Dropped.
    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        NOOPMetricsHandler.instance
    }

    /// Dropped.
    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        NOOPMetricsHandler.instance
    }

    /// Nothing: the counters are kept for `total`.
    public func destroyCounter(_ handler: any CounterHandler) {}
    /// Nothing.
    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    /// Nothing.
    public func destroyMeter(_ handler: any MeterHandler) {}
    /// Nothing.
    public func destroyRecorder(_ handler: any RecorderHandler) {}
    /// Nothing.
    public func destroyTimer(_ handler: any TimerHandler) {}
}

/// One counter of `CountingMetrics`.
final class CountingMetricsCounter: CounterHandler, Sendable {
    private let count = Locked<Int64>(0)

    var value: Int64 { count.withLock { $0 } }

    func increment(by amount: Int64) {
        count.withLock { $0 += amount }
    }

    func reset() {
        count.withLock { $0 = 0 }
    }
}
