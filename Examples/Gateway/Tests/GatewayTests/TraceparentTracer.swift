import Foundation
import InMemoryTracing
import Instrumentation
import Tracing

/// swift-distributed-tracing's `InMemoryTracer` speaking W3C Trace Context on the wire: it
/// extracts and injects `traceparent` (`00-{trace id}-{span id}-01`) instead of the in-memory
/// tracer's own headers, and makes ids of the W3C sizes, so a test can send a `traceparent` to
/// the gateway and find the same trace id on the requests DemoServer received.
struct TraceparentTracer: Tracer {
    /// Where the spans are kept.
    let spans: InMemoryTracer

    /// The process's tracer, bootstrapped once on first use.
    static let shared: TraceparentTracer = {
        let tracer = TraceparentTracer()
        InstrumentationSystem.bootstrap(tracer)
        return tracer
    }()

    private init() {
        spans = InMemoryTracer(idGenerator: .init(nextTraceID: { Self.hex(bytes: 16) }, nextSpanID: { Self.hex(bytes: 8) }))
    }

    static func hex(bytes: Int) -> String {
        (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind, at instant: @autoclosure () -> Instant,
        function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        spans.startSpan(operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line)
    }

    func activeSpan(identifiedBy context: ServiceContext) -> InMemorySpan? {
        spans.activeSpan(identifiedBy: context)
    }

    func forceFlush() {
        spans.forceFlush()
    }

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {
        guard let value = extractor.extract(key: "traceparent", from: carrier) else { return }
        let fields = value.split(separator: "-")
        guard fields.count == 4, fields[1].count == 32, fields[2].count == 16 else { return }
        context.inMemorySpanContext = InMemorySpanContext(traceID: String(fields[1]), spanID: String(fields[2]), parentSpanID: nil)
    }
}
