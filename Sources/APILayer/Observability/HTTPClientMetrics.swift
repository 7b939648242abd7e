import Foundation
import Metrics
import NetOps

/// Records OpenTelemetry's HTTP client metrics for each attempt of a call: its duration and
/// the attempts in flight. Every dimension has few values (a method, a host, a port, a scheme,
/// a status code, an error kind, a protocol version): never a path, a query or an ID. Never
/// called under a lock.
struct HTTPClientMetrics: Sendable {
    let factory: any MetricsFactory

    /// The dimensions every attempt to `url` with `method` shares.
    static func dimensions(method: String, url: URL?) -> [(String, String)] {
        var dimensions = [(SpanAttributeKey.httpMethod, method)]
        guard let url else { return dimensions }
        let scheme = url.scheme?.lowercased()
        if let host = url.host { dimensions.append((SpanAttributeKey.serverAddress, host)) }
        if let port = url.port ?? scheme.flatMap(Origin.defaultPort(of:)) {
            dimensions.append((SpanAttributeKey.serverPort, String(port)))
        }
        if let scheme { dimensions.append((SpanAttributeKey.urlScheme, scheme)) }
        return dimensions
    }

    /// An attempt with `dimensions` went out.
    func started(_ dimensions: [(String, String)]) {
        Meter(label: OTelMetricLabel.activeRequests, dimensions: dimensions, factory: factory).increment()
    }

    /// The attempt with `dimensions` ended after `nanoseconds`: answered with `status`, or
    /// failed as `errorType`.
    func ended(_ dimensions: [(String, String)], status: Int?, errorType: String?, protocolVersion: String?, nanoseconds: Int64) {
        Meter(label: OTelMetricLabel.activeRequests, dimensions: dimensions, factory: factory).decrement()
        var all = dimensions
        if let status { all.append((SpanAttributeKey.statusCode, String(status))) }
        if let errorType { all.append((SpanAttributeKey.errorType, errorType)) }
        if let protocolVersion { all.append((SpanAttributeKey.protocolVersion, protocolVersion)) }
        Timer(label: OTelMetricLabel.requestDuration, dimensions: all, preferredDisplayUnit: .seconds, factory: factory)
            .recordNanoseconds(nanoseconds)
    }
}
