/// What a call of an API does with a response that breaks its method's template.
///
/// `.strict` (the default) fails the call at stage `validation`, as always. `.reportOnly` lets
/// it go on: the call returns its mapped model when mapping succeeds, and each validation error
/// is counted in `apilayer.validation.failures` (api, method, rule, and the JSON Pointer with
/// array indexes collapsed: `/items/*/name`) and logged at `warning` once per distinct method,
/// pointer and rule per `logInterval`. A service turns it on to watch an API drift from its
/// templates in production before it trusts new templates:
///
/// ```swift
/// APIScope.tracker.configure { $0.validationMode = .reportOnly }
/// ```
public struct ValidationMode: Sendable, Equatable, CustomStringConvertible {
    /// How often one distinct failure (method, pointer, rule) is logged in report-only mode;
    /// nil in strict mode.
    public let logInterval: Duration?

    private init(logInterval: Duration?) {
        self.logInterval = logInterval
    }

    /// A response that breaks its template fails its call (the default).
    public static let strict = ValidationMode(logInterval: nil)

    /// Validation failures are counted and logged (each distinct one once a minute), and the
    /// call goes on to mapping.
    public static let reportOnly = ValidationMode(logInterval: .seconds(60))

    /// Report-only, each distinct failure logged at most once per `logInterval`.
    public static func reportOnly(logInterval: Duration) -> ValidationMode {
        ValidationMode(logInterval: max(logInterval, .zero))
    }

    /// Whether failures are reported instead of failing the call.
    public var isReportOnly: Bool { logInterval != nil }

    /// `strict`, or `reportOnly (log every 60 s)`.
    public var description: String {
        guard let logInterval else { return "strict" }
        return "reportOnly (log every \(logInterval))"
    }
}
