import Logging
import Metrics
import NetOps
import Validator

/// The report-only side of one call's validation: counts each failure in
/// `apilayer.validation.failures` and logs each distinct one once per interval, through the
/// API's log of what it already logged (`ValidationDriftLog`).
struct ValidationDrift: Sendable {
    let api: String
    let log: ValidationDriftLog
    let interval: Duration
    let logger: Logger
    let factory: any MetricsFactory
    let redaction: Redaction

    /// The drift reporting of a scope's calls, or nil when its validation is strict.
    init?(api: String, log: ValidationDriftLog, configuration: APIScope.Configuration) {
        guard let interval = configuration.validationMode.logInterval else { return nil }
        self.api = api
        self.log = log
        self.interval = interval
        logger = configuration.logger
        factory = configuration.resolvedMetricsFactory
        redaction = configuration.redaction
    }

    /// Counts and (once per interval) logs each of `errors` of a response of `method`.
    func report(_ errors: [ValidationError], method: String) {
        for error in errors {
            let pointer = Self.collapsed(error.path)
            let count = error.omittedCount ?? 1
            Counter(
                label: MetricLabel.validationFailures,
                dimensions: [
                    (MetricDimension.api, api), (MetricDimension.method, method), (MetricDimension.rule, error.rule),
                    (MetricDimension.pointer, pointer),
                ],
                factory: factory
            ).increment(by: Int64(count))
            guard log.shouldLog(method: method, pointer: pointer, rule: error.rule, interval: interval) else { continue }
            logger.warning(
                "[APILayer] \(method): a response breaks its template (report-only: the call goes on): \(describe(error))",
                metadata: [
                    "apilayer.api": "\(api)", "apilayer.method": "\(method)", "apilayer.pointer": "\(pointer)",
                    "apilayer.rule": "\(error.rule)",
                ])
        }
    }

    /// The error as one line, the response's value redacted (hidden entirely under a secret key).
    private func describe(_ error: ValidationError) -> String {
        let key = JSONPointer(error.path)?.tokens.last ?? ""
        let actual = redaction.isSecret(parameter: key) ? Redaction.placeholder : redaction.text(error.actual, limit: 200)
        let path = error.path.isEmpty ? "(root)" : error.path
        return "\(path): \(error.rule): expected \(redaction.text(error.expected, limit: 200)), got \(actual)"
    }

    /// `path` with every array index written `*` (`/items/3/name` → `/items/*/name`), so that
    /// the metric's series stay as few as the template's places. A key made of digits only is
    /// collapsed too.
    static func collapsed(_ path: String) -> String {
        guard path.utf8.contains(where: { (0x30...0x39).contains($0) }) else { return path }
        return path.split(separator: "/", omittingEmptySubsequences: false).map { token in
            !token.isEmpty && token.utf8.allSatisfy({ (0x30...0x39).contains($0) }) ? "*" : String(token)
        }.joined(separator: "/")
    }
}

/// When each distinct validation failure of an API (method, pointer, rule) was last logged.
///
/// Holds at most `capacity` entries: when full, the entries older than the interval go; a
/// failure that still finds no room is counted but not logged.
final class ValidationDriftLog: Sendable {
    private struct Key: Hashable {
        var method: String
        var pointer: String
        var rule: String
    }

    static let capacity = 4_096
    private let logged = Locked<[Key: ContinuousClock.Instant]>([:])

    /// Whether the failure is due to be logged now, and if so, records that it was.
    func shouldLog(method: String, pointer: String, rule: String, interval: Duration, now: ContinuousClock.Instant = .now) -> Bool {
        let key = Key(method: method, pointer: pointer, rule: rule)
        return logged.withLock { logged in
            if let last = logged[key], now - last < interval { return false }
            if logged[key] == nil, logged.count >= Self.capacity {
                logged = logged.filter { now - $0.value < interval }
                guard logged.count < Self.capacity else { return false }
            }
            logged[key] = now
            return true
        }
    }
}
