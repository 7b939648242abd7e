import Configuration
import Foundation
import NetOps

@available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
extension RateLimiter.Configuration {
    /// Limits read from `configReader` (scoped to their section, e.g. `tracker.rateLimit`); each
    /// key missing keeps the default of `init()`.
    ///
    /// ## Configuration keys
    /// - `requestsPerInterval` (int, at least 1, optional): a budget of the limiter's own.
    /// - `interval` (seconds, more than 0, default 1): what the budget counts over.
    /// - `burst` (int, at least 1, optional; default `requestsPerInterval`).
    /// - `honoursServerLimits` (bool, default true): `Retry-After` and budget headers park calls.
    /// - `maximumWait` (seconds, at least 0, default 60): the longest wait a server imposes.
    /// - `sendsIdempotencyKeys` (bool, default false).
    /// - `maximumConcurrentRequests` (int, at least 1, optional).
    /// - `maximumParkedCalls` (int, at least 0, default 1 000): calls that may wait for servers'
    ///   limits at once; past it a call that would wait fails at once.
    ///
    /// - Throws: `ConfigurationError` naming the key whose value is of the wrong type or out of range.
    public init(configReader: ConfigReader) throws {
        self = try Self.read(ConfigSettingsReader(configReader)) ?? Self()
    }

    /// The limits the section's keys give; nil when it has none of them.
    package static func read(_ section: ConfigSettingsReader) throws -> Self? {
        let perInterval = try section.int("requestsPerInterval", atLeast: 1)
        let interval = try section.seconds("interval", positive: true)
        let burst = try section.int("burst", atLeast: 1)
        let honours = try section.bool("honoursServerLimits")
        let maximumWait = try section.seconds("maximumWait", positive: false)
        let idempotencyKeys = try section.bool("sendsIdempotencyKeys")
        let concurrent = try section.int("maximumConcurrentRequests", atLeast: 1)
        let parked = try section.int("maximumParkedCalls", atLeast: 0)
        let given: [Any?] = [perInterval, interval, burst, honours, maximumWait, idempotencyKeys, concurrent, parked]
        guard given.contains(where: { $0 != nil }) else { return nil }
        let standard = Self()
        return Self(
            requestsPerInterval: perInterval, interval: interval ?? standard.interval, burst: burst,
            honoursServerLimits: honours ?? standard.honoursServerLimits, maximumWait: maximumWait ?? standard.maximumWait,
            sendsIdempotencyKeys: idempotencyKeys ?? standard.sendsIdempotencyKeys, maximumConcurrentRequests: concurrent,
            maximumParkedCalls: parked ?? standard.maximumParkedCalls)
    }
}

@available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
extension CircuitBreaker.Configuration {
    /// A breaker's settings read from `configReader` (scoped to their section, e.g.
    /// `tracker.circuitBreaker`); each key missing keeps the default of `init()`.
    ///
    /// ## Configuration keys
    /// - `failureThreshold` (int, at least 1, default 5): consecutive failures that open a circuit.
    /// - `coolDown` (seconds, at least 0, default 30): how long an open circuit refuses calls.
    /// - `maximumOrigins` (int, at least 1, default 1 024): origins whose circuits are kept.
    ///
    /// - Throws: `ConfigurationError` naming the key whose value is of the wrong type or out of range.
    public init(configReader: ConfigReader) throws {
        self = try Self.read(ConfigSettingsReader(configReader)) ?? Self()
    }

    /// The settings the section's keys give; nil when it has none of them.
    package static func read(_ section: ConfigSettingsReader) throws -> Self? {
        let threshold = try section.int("failureThreshold", atLeast: 1)
        let coolDown = try section.seconds("coolDown", positive: false)
        let origins = try section.int("maximumOrigins", atLeast: 1)
        guard threshold != nil || coolDown != nil || origins != nil else { return nil }
        let standard = Self()
        return Self(
            failureThreshold: threshold ?? standard.failureThreshold, coolDown: coolDown ?? standard.coolDown,
            maximumOrigins: origins ?? standard.maximumOrigins)
    }
}

@available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
extension RequestCoalescer.Configuration {
    /// A coalescer's settings read from `configReader` (scoped to their section, e.g.
    /// `tracker.coalescing`); each key missing keeps the default of `init()`.
    ///
    /// ## Configuration keys
    /// - `methods` (string list, default GET, HEAD): the methods whose requests coalesce; any
    ///   other method is refused.
    /// - `ignoredHeaders` (string list, default `standardIgnoredHeaders`): fields left out when
    ///   requests are compared; a credential field (`authorization`, `cookie`, an API key…) is
    ///   refused.
    /// - `maximumBacklogBytes` (int, at least 0, default 8 MiB): a shared answer's bytes kept for
    ///   late joiners.
    ///
    /// - Throws: `ConfigurationError` naming the key whose value is of the wrong type or out of range.
    public init(configReader: ConfigReader) throws {
        self = try Self.read(ConfigSettingsReader(configReader)) ?? Self()
    }

    /// The settings the section's keys give; nil when it has none of them.
    package static func read(_ section: ConfigSettingsReader) throws -> Self? {
        let methods = try section.strings("methods")
        let ignored = try section.strings("ignoredHeaders")
        // Never quietly dropped, as the initializer does for code: a deployment that asks for
        // it is told at start.
        if let methods, !methods.allSatisfy({ Self.safeMethods.contains($0.uppercased()) }) {
            throw section.error("methods", .invalid("GET or HEAD only (a request coalesced with another must be safe to ask once)"))
        }
        if let ignored, !ignored.allSatisfy(Self.mayIgnore) {
            throw section.error(
                "ignoredHeaders", .invalid("fields that carry no credential (two callers' credentials would share one answer)"))
        }
        let backlog = try section.int("maximumBacklogBytes", atLeast: 0)
        let given: [Any?] = [methods, ignored, backlog]
        guard given.contains(where: { $0 != nil }) else { return nil }
        let standard = Self()
        return Self(
            methods: methods.map(Set.init) ?? standard.methods, ignoredHeaders: ignored.map(Set.init) ?? standard.ignoredHeaders,
            maximumBacklogBytes: backlog ?? standard.maximumBacklogBytes)
    }
}
