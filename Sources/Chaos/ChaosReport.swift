import Foundation

/// The figures of a chaos run; `isClean` is the verdict.
public struct ChaosReport: Sendable, Codable, Equatable {
    /// Top-level operations run.
    public var ops = 0
    /// Top-level operations that reached a final state (success, failure or cancellation).
    public var final = 0
    /// Operations (sub-operations included) not final when the watchdog fired, whose completion
    /// never ran, or whose `syncStart()`/`await` never returned.
    public var hung = 0
    /// Operations whose completion ran more than once.
    public var doubleCompletions = 0
    /// Operations still alive (a weak reference not nil) after the run released them.
    public var leaked = 0
    /// Files left in the download folder: hidden partial files, or files of downloads that failed.
    public var tempFilesLeft = 0
    /// Successful downloads of a known payload whose file is not byte-identical to it.
    public var corruptFiles = 0
    /// Wall-clock seconds of the run.
    public var seconds = 0.0
    /// Sub-operations started by groups (checked like the top-level ones).
    public var subOperations = 0
    /// Top-level operations by final state, e.g. `["successFinished": 1200, …]`.
    public var states: [String: Int] = [:]
    /// One line per stuck or leaked operation (at most 50).
    public var stuck: [String] = []
    /// Times the circuit of the `.breaker` operations' origin opened (the fault mode drives it).
    public var circuitOpens = 0
    /// Operations (sub-operations included) that ended with `circuitOpen`: refused at once by
    /// an open circuit, without a request.
    public var circuitRefusals = 0
    /// Calls of the run's API scope answered by a fresh entry of its HTTP cache.
    public var cacheHits = 0
    /// Calls of the scope answered by an entry the server confirmed with a 304.
    public var cacheRevalidations = 0
    /// Calls of the scope that joined an identical request in flight.
    public var coalesced = 0
    /// Waits the server imposed on the scope (`Retry-After`, an exhausted budget).
    public var rateLimitWaits = 0
    /// Times a circuit of the scope's breaker opened.
    public var scopeCircuitOpens = 0

    /// True when nothing hung, completed twice, leaked, was left behind or was corrupt.
    public var isClean: Bool {
        hung == 0 && doubleCompletions == 0 && leaked == 0 && tempFilesLeft == 0 && corruptFiles == 0 && final == ops
    }

    enum CodingKeys: String, CodingKey {
        case ops, final, hung, leaked, seconds, states, stuck
        case doubleCompletions = "double-completions"
        case tempFilesLeft = "temp-files-left"
        case corruptFiles = "corrupt-files"
        case subOperations = "sub-operations"
        case circuitOpens = "circuit-opens"
        case circuitRefusals = "circuit-refusals"
        case cacheHits = "cache-hits"
        case cacheRevalidations = "cache-revalidations"
        case coalesced
        case rateLimitWaits = "rate-limit-waits"
        case scopeCircuitOpens = "scope-circuit-opens"
    }

    /// Creates an empty report.
    public init() {}

    /// The report as pretty JSON with sorted keys.
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// A few human-readable lines.
    public var summary: String {
        var lines = [
            "ops \(ops), final \(final), hung \(hung), double-completions \(doubleCompletions), "
                + "leaked \(leaked), temp-files-left \(tempFilesLeft), corrupt-files \(corruptFiles), "
                + "sub-operations \(subOperations), circuit-opens \(circuitOpens), circuit-refusals \(circuitRefusals), "
                + String(format: "%.1f s", seconds),
            "scope: cache-hits \(cacheHits), cache-revalidations \(cacheRevalidations), coalesced \(coalesced), "
                + "rate-limit-waits \(rateLimitWaits), scope-circuit-opens \(scopeCircuitOpens)",
            "states: " + states.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "),
        ]
        lines += stuck.map { "  stuck: \($0)" }
        lines.append(isClean ? "verdict: clean" : "verdict: VIOLATIONS")
        return lines.joined(separator: "\n")
    }
}
