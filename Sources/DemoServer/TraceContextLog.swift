import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers

/// The trace context one request to a DemoServer carried: its method, raw path and W3C
/// `traceparent` header, so a test can check that a service propagated its trace to the calls
/// it made (Examples/Gateway's tracing test).
public struct SeenTraceContext: Sendable, Equatable, CustomStringConvertible {
    /// The request's method.
    public var method: String
    /// The raw path, as sent (no query).
    public var path: String
    /// The `traceparent` header: `00-{trace id}-{parent span id}-{flags}`.
    public var traceparent: String

    /// The trace id `traceparent` names (its second field), if it has one.
    public var traceID: String? {
        let fields = traceparent.split(separator: "-")
        return fields.count == 4 ? String(fields[1]) : nil
    }

    /// The span id `traceparent` names as the request's parent (its third field), if it has one.
    public var parentSpanID: String? {
        let fields = traceparent.split(separator: "-")
        return fields.count == 4 ? String(fields[2]) : nil
    }

    /// `METHOD path traceparent`.
    public var description: String { "\(method) \(path) \(traceparent)" }
}

/// Records the `traceparent` of every request that carries one; keeps the latest 10 000.
final class TraceContextLog: Sendable {
    private let entries = NIOLockedValueBox<[SeenTraceContext]>([])

    func record(_ entry: SeenTraceContext) {
        entries.withLockedValue { entries in
            entries.append(entry)
            if entries.count > 10_000 { entries.removeFirst(entries.count - 10_000) }
        }
    }

    var all: [SeenTraceContext] { entries.withLockedValue { $0 } }
}

/// Notes the `traceparent` of every request before it is routed.
struct TraceContextLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let log: TraceContextLog

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let traceparent = request.headers[traceparentField] {
            log.record(SeenTraceContext(method: request.method.rawValue, path: request.uri.path, traceparent: traceparent))
        }
        return try await next(request, context)
    }
}

/// The W3C Trace Context header's name.
private let traceparentField = HTTPField.Name("traceparent")!
