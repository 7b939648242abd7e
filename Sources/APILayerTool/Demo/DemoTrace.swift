import InMemoryTracing
import MetricsTestKit
import Tracing

/// `apilayer demo --trace`: where the demo's API reports (an in-memory tracer and metrics
/// kept in memory, given to its scope: nothing process-wide is bootstrapped), and how the
/// span tree of one section and the metrics of the run are printed.
struct DemoTrace: Sendable {
    let tracer = InMemoryTracer()
    let metrics = TestMetrics()
    /// The name of the span around the traced section.
    static let sectionSpan = "demo section: an expired token"

    /// Runs `section` inside its own span: every call it makes becomes that span's child.
    func traced(_ section: () async -> Void) async {
        await tracer.withSpan(Self.sectionSpan, context: .topLevel) { _ in await section() }
    }

    /// The traced section's span tree, one line per span, children in the order they started.
    func spanTree() -> [String] {
        let spans = tracer.finishedSpans
        guard let root = spans.first(where: { $0.operationName == Self.sectionSpan }) else { return ["(no traced section)"] }
        var children: [String: [FinishedInMemorySpan]] = [:]
        for span in spans where span.traceID == root.traceID {
            if let parent = span.parentSpanID { children[parent, default: []].append(span) }
        }
        var lines: [String] = []
        func walk(_ span: FinishedInMemorySpan, depth: Int) {
            lines.append(String(repeating: "  ", count: depth) + Self.describe(span))
            let ordered = (children[span.spanID] ?? []).sorted {
                $0.startInstant.nanosecondsSinceEpoch < $1.startInstant.nanosecondsSinceEpoch
            }
            for child in ordered { walk(child, depth: depth + 1) }
        }
        walk(root, depth: 0)
        return lines
    }

    /// The metrics the run recorded: `label{dimensions} value`, sorted.
    func metricLines() -> [String] {
        func name(_ label: String, _ dimensions: [(String, String)]) -> String {
            label + "{" + dimensions.map { "\($0.0)=\($0.1)" }.joined(separator: ",") + "}"
        }
        var lines = metrics.counters.map { "\(name($0.label, $0.dimensions)) \($0.totalValue)" }
        lines += metrics.timers.map { timer in
            let values = timer.values
            let mean = values.isEmpty ? 0 : Double(values.reduce(0, +)) / Double(values.count) / 1e6
            return "\(name(timer.label, timer.dimensions)) count \(values.count), mean \(Self.format(mean)) ms"
        }
        lines += metrics.meters.map { "\(name($0.label, $0.dimensions)) now \(Self.format($0.lastValue ?? 0))" }
        return lines.sorted()
    }

    private static func describe(_ span: FinishedInMemorySpan) -> String {
        let milliseconds = (Double(span.endInstant.nanosecondsSinceEpoch) - Double(span.startInstant.nanosecondsSinceEpoch)) / 1e6
        let shown = ["http.response.status_code", "http.request.resend_count", "error.type", "apilayer.outcome"]
        var details = shown.compactMap { key in span.attributes[key].map { "\(key)=\(Self.text($0.toSpanAttribute()))" } }
        let events = span.events.map(\.name).filter { $0 == "postponed" || $0 == "replayed" || $0 == "retried" }
        if !events.isEmpty { details.append("events: " + events.joined(separator: ", ")) }
        return "\(span.operationName) (\(span.kind), \(format(milliseconds)) ms)" + (details.isEmpty ? "" : " " + details.joined(separator: " "))
    }

    private static func text(_ attribute: SpanAttribute) -> String {
        switch attribute {
        case let .int32(value): return "\(value)"
        case let .int64(value): return "\(value)"
        case let .double(value): return "\(value)"
        case let .bool(value): return "\(value)"
        case let .string(value): return value
        case let .stringConvertible(value): return value.description
        default: return "…"
        }
    }

    private static func format(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return "\(tenths)"
    }
}
