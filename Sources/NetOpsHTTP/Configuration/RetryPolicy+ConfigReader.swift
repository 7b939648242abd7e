import Configuration
import Foundation
import NetOps

@available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
extension RetryPolicy {
    /// A policy read from `configReader` (scoped to its section, e.g. `tracker.retry`); each key
    /// missing keeps `RetryPolicy.standard`'s value.
    ///
    /// ## Configuration keys
    /// - `maximumAttempts` (int, at least 1, default 4): requests sent in all, the first included.
    /// - `retryBudget` (seconds, at least 0, default 30): all waits between attempts together.
    /// - `baseDelay` (seconds, at least 0, default 0.2): the first backoff's upper bound.
    /// - `maximumDelay` (seconds, at least 0, default 10): the largest backoff bound.
    /// - `retryableStatuses` (int list, each 100–599, default 408, 429, 500, 502, 503, 504).
    ///
    /// - Throws: `ConfigurationError` naming the key whose value is of the wrong type or out of range.
    public init(configReader: ConfigReader) throws {
        self = try Self.read(ConfigSettingsReader(configReader)) ?? .standard
    }

    /// The policy the section's keys give; nil when it has none of them.
    package static func read(_ section: ConfigSettingsReader) throws -> RetryPolicy? {
        let attempts = try section.int("maximumAttempts", atLeast: 1)
        let budget = try section.seconds("retryBudget", positive: false)
        let baseDelay = try section.seconds("baseDelay", positive: false)
        let maximumDelay = try section.seconds("maximumDelay", positive: false)
        let statuses = try section.ints("retryableStatuses")
        if let statuses, statuses.contains(where: { !(100...599).contains($0) }) {
            throw section.error("retryableStatuses", .outOfRange("HTTP statuses, from 100 to 599"))
        }
        let given: [Any?] = [attempts, budget, baseDelay, maximumDelay, statuses]
        guard given.contains(where: { $0 != nil }) else { return nil }
        let standard = RetryPolicy.standard
        return RetryPolicy(
            maximumAttempts: attempts ?? standard.maximumAttempts, retryBudget: budget ?? standard.retryBudget,
            baseDelay: baseDelay ?? standard.baseDelay, maximumDelay: maximumDelay ?? standard.maximumDelay,
            retryableStatuses: statuses.map(Set.init) ?? standard.retryableStatuses)
    }
}
