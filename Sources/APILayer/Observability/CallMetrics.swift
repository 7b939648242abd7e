import Metrics
import NetOps
import NetOpsHTTP

/// Records one API's metrics into one factory. Never called under a lock: a slow backend
/// delays only the call that records.
struct CallMetrics: Sendable {
    let factory: any MetricsFactory
    let api: String
    let method: String

    private var base: [(String, String)] { [(MetricDimension.api, api), (MetricDimension.method, method)] }

    func callEnded(outcome: CallOutcome, status: Int?, nanoseconds: Int64?, failedStage: String?) {
        Counter(
            label: MetricLabel.requests,
            dimensions: base + [(MetricDimension.statusClass, statusClass(status)), (MetricDimension.outcome, outcome.rawValue)],
            factory: factory
        ).increment()
        if let nanoseconds {
            Timer(label: MetricLabel.duration, dimensions: base + [(MetricDimension.outcome, outcome.rawValue)], factory: factory)
                .recordNanoseconds(nanoseconds)
        }
        if let failedStage {
            Counter(label: MetricLabel.failures, dimensions: base + [(MetricDimension.stage, failedStage)], factory: factory)
                .increment()
        }
    }

    func resent(reason: String) {
        Counter(label: MetricLabel.retries, dimensions: base + [(MetricDimension.reason, reason)], factory: factory).increment()
    }

    func transferred(sent: Int64, received: Int64) {
        if sent > 0 { Counter(label: MetricLabel.bytesSent, dimensions: base, factory: factory).increment(by: sent) }
        if received > 0 { Counter(label: MetricLabel.bytesReceived, dimensions: base, factory: factory).increment(by: received) }
    }

    /// One request that went through the API's `HTTPCache`.
    func cacheLookup(_ outcome: HTTPCache.Outcome) {
        Counter(label: MetricLabel.cacheLookups, dimensions: base + [(MetricDimension.outcome, outcome.rawValue)], factory: factory)
            .increment()
    }

    func parked(_ delta: Int) {
        let meter = Meter(label: MetricLabel.parked, dimensions: [(MetricDimension.api, api)], factory: factory)
        if delta > 0 { meter.increment(by: Double(delta)) } else { meter.decrement(by: Double(-delta)) }
    }

    static func refreshed(api: String, succeeded: Bool, factory: any MetricsFactory) {
        Counter(
            label: MetricLabel.refreshes,
            dimensions: [(MetricDimension.api, api), (MetricDimension.outcome, succeeded ? "success" : "failure")],
            factory: factory
        ).increment()
    }
}
