import Foundation
import Instrumentation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Writes a tracer's propagation fields (W3C `traceparent` and `tracestate` for an
/// OpenTelemetry tracer) into a request's headers.
struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into request: inout URLRequest) {
        request.setValue(value, forHTTPHeaderField: key)
    }
}
