import Configuration
import Foundation
import NetOps
import NetOpsHTTP

@available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
extension APIScope.Configuration {
    /// A configuration read from `configReader`, scoped to the API by the caller: a scope's keys
    /// are the API's name and the setting, `tracker.totalTimeout` (`TRACKER_TOTAL_TIMEOUT` in the
    /// environment).
    ///
    /// ```swift
    /// let config = ConfigReader(provider: EnvironmentVariablesProvider())
    /// let tracker = APIScope(name: "tracker", configuration: try .init(configReader: config.scoped(to: "tracker")))
    /// ```
    ///
    /// Every key is optional: a missing one keeps the default of `init()`. `Docs/configuration.md`
    /// lists the keys, their types and defaults:
    /// - `baseURL` (absolute http(s) URL), `trustedOrigins` (URL list),
    /// - `totalTimeout` (seconds or `none`), `maximumResponseBodyBytes` (int or `none`; the
    ///   former name `maximumResponseBytes` is read when it is absent),
    /// - `usesCookies`, `allowsHTTP2` (bool), `stubMode` (`off`, `immediate`, `delayed`) and
    ///   `stubDelay` (seconds, required by `delayed`),
    /// - the sections `retry`, `rateLimit`, `circuitBreaker`, `coalescing` (each with an
    ///   `enabled` bool), `tls` and `proxy`, read by `RetryPolicy(configReader:)`,
    ///   `RateLimiter.Configuration(configReader:)`, `CircuitBreaker.Configuration(configReader:)`,
    ///   `RequestCoalescer.Configuration(configReader:)`, `TLSSettings(configReader:)` and
    ///   `ProxyChoice(configReader:)`.
    ///
    /// Templates, session, middleware, mapper, logger, metrics, tracer, redaction, cache,
    /// connectivity monitor and callback queue are objects or closures: set them in code.
    ///
    /// - Throws: `ConfigurationError` naming the first key whose value is of the wrong type, out
    ///   of range or incomplete (never the value itself).
    public init(configReader: ConfigReader) throws {
        self.init()
        try update(from: configReader)
    }

    /// Sets what `configReader` (scoped to the API) gives and keeps the rest: a key missing
    /// leaves its setting as it is; a section (`retry`, `tls`, `proxy`, …) with any key replaces
    /// that setting as a whole. Nothing changes when it throws.
    ///
    /// - Throws: `ConfigurationError` naming the first key whose value is of the wrong type, out
    ///   of range or incomplete.
    public mutating func update(from configReader: ConfigReader) throws {
        var updated = self
        try updated.read(ConfigSettingsReader(configReader))
        self = updated
    }

    private mutating func read(_ settings: ConfigSettingsReader) throws {
        if let baseURL = try settings.url("baseURL") { self.baseURL = baseURL }
        if let origins = try settings.strings("trustedOrigins") {
            trustedOrigins = try origins.map { text in
                guard let url = URL(string: text), url.scheme != nil, url.host?.isEmpty == false else {
                    throw settings.error("trustedOrigins", .invalid("a list of absolute URLs"))
                }
                return url
            }
        }
        if let timeout = try settings.secondsOrNone("totalTimeout", positive: true) { totalTimeout = timeout }
        // The key's former name is still read, when the current one is absent.
        if let bytes = try settings.intOrNone("maximumResponseBodyBytes", atLeast: 0) ?? settings.intOrNone("maximumResponseBytes", atLeast: 0) {
            maximumResponseBodyBytes = bytes.map(Int64.init)
        }
        if let cookies = try settings.bool("usesCookies") { usesCookies = cookies }
        if let http2 = try settings.bool("allowsHTTP2") { allowsHTTP2 = http2 }
        try readStubMode(settings)

        let retry = settings.scoped(to: "retry")
        switch (try retry.bool("enabled"), try RetryPolicy.read(retry)) {
        case (false?, _): retryPolicy = RetryPolicy.none
        case let (_, policy?): retryPolicy = policy
        case (true?, nil): retryPolicy = .standard
        case (nil, nil): break
        }
        let rateLimit = settings.scoped(to: "rateLimit")
        switch (try rateLimit.bool("enabled"), try RateLimiter.Configuration.read(rateLimit)) {
        case (false?, _): self.rateLimit = nil
        case let (_, limits?): self.rateLimit = limits
        case (true?, nil): self.rateLimit = self.rateLimit ?? RateLimiter.Configuration()
        case (nil, nil): break
        }
        let breaker = settings.scoped(to: "circuitBreaker")
        switch (try breaker.bool("enabled"), try CircuitBreaker.Configuration.read(breaker)) {
        case (false?, _): circuitBreaker = nil
        case let (_, breaker?): circuitBreaker = breaker
        case (true?, nil): circuitBreaker = circuitBreaker ?? CircuitBreaker.Configuration()
        case (nil, nil): break
        }
        let coalescing = settings.scoped(to: "coalescing")
        switch (try coalescing.bool("enabled"), try RequestCoalescer.Configuration.read(coalescing)) {
        case (false?, _): self.coalescing = nil
        case let (_, coalescer?): self.coalescing = coalescer
        case (true?, nil): self.coalescing = self.coalescing ?? RequestCoalescer.Configuration()
        case (nil, nil): break
        }
        if let tls = try TLSSettings.read(settings.scoped(to: "tls")) { self.tls = tls }
        if let proxy = try ProxyChoice.read(settings.scoped(to: "proxy")) { self.proxy = proxy }
    }

    private mutating func readStubMode(_ settings: ConfigSettingsReader) throws {
        enum Mode { case off, immediate, delayed }
        let delay = try settings.seconds("stubDelay", positive: false)
        switch try settings.choice("stubMode", ["off": Mode.off, "immediate": .immediate, "delayed": .delayed]) {
        case .off?: stubMode = .off
        case .immediate?: stubMode = .immediate
        case .delayed?: stubMode = .delayed(try settings.required("stubDelay", delay))
        case nil: if let delay, case .delayed = stubMode { stubMode = .delayed(delay) }
        }
    }
}

@available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
extension APIScope {
    /// Sets the scope's configuration from `configReader`, scoped to this API by the caller
    /// (`config.scoped(to: "tracker")`), in one step: keys missing keep their setting (see
    /// `APIScope.Configuration.update(from:)`), and nothing changes when it throws.
    ///
    /// ```swift
    /// let config = ConfigReader(provider: EnvironmentVariablesProvider())
    /// try APIScope.tracker.configure(from: config.scoped(to: "tracker"))
    /// ```
    ///
    /// - Throws: `ConfigurationError` naming the first key whose value is of the wrong type, out
    ///   of range or incomplete (never the value itself).
    public func configure(from configReader: ConfigReader) throws {
        var failure: (any Error)?
        configure { configuration in
            do {
                try configuration.update(from: configReader)
                failure = nil
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }
}
