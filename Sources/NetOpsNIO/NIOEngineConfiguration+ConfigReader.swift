import Configuration
import Foundation
import NetOps
import NetOpsHTTP

@available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
extension NIOEngineConfiguration {
    /// A configuration read from `configReader`, scoped by the caller (`config.scoped(to: "http")`:
    /// `http.maximumConnectionsPerHost`, `HTTP_MAXIMUM_CONNECTIONS_PER_HOST`); every key missing
    /// keeps the default of `init()`.
    ///
    /// ```swift
    /// let config = ConfigReader(provider: EnvironmentVariablesProvider())
    /// let session = NetworkSession.nio(configuration: try NIOEngineConfiguration(configReader: config.scoped(to: "http")))
    /// ```
    ///
    /// ## Configuration keys
    /// - `maximumConnectionsPerHost` (int, at least 1, default 16).
    /// - `idleConnectionTimeout`, `connectTimeout` (seconds, more than 0, defaults 60 and 10).
    /// - `followsRedirects` (bool, default true), `maximumRedirects` (int, at least 0, default 10).
    /// - `decompressionRatioLimit` (int, at least 1, default 100).
    /// - `insecureSkipCertificateVerification` (bool, default false): test servers only.
    /// - `allowsHTTP2` (bool, default true), `retriesConnectionEstablishment` (bool, default false).
    /// - `preWarmedConnectionsPerHost` (int, at least 0, default 0).
    /// - `maximumUsesPerConnection` (int, at least 1, or `none`, the default).
    /// - `dnsOverride` (string list of `host:address`, as AsyncHTTPClient's `dnsOverrides`).
    /// - `randomizesResolution`, `makesClientSpans` (bool, default false).
    /// - `completionDelivery` (string, default `dispatchQueue`): `dispatchQueue` or `eventLoop`.
    /// - `tls` and `proxy` (sections): see `TLSSettings(configReader:)` and
    ///   `ProxyChoice(configReader:)`; the proxy's password is read as a secret.
    ///
    /// The logger is an object: set it in code.
    ///
    /// - Throws: `ConfigurationError` naming the first key whose value is of the wrong type, out
    ///   of range or incomplete (never the value itself).
    public init(configReader: ConfigReader) throws {
        self.init()
        let settings = ConfigSettingsReader(configReader)
        if let connections = try settings.int("maximumConnectionsPerHost", atLeast: 1) { maximumConnectionsPerHost = connections }
        if let idle = try settings.seconds("idleConnectionTimeout", positive: true) { idleConnectionTimeout = idle }
        if let connect = try settings.seconds("connectTimeout", positive: true) { connectTimeout = connect }
        if let follows = try settings.bool("followsRedirects") { followsRedirects = follows }
        if let redirects = try settings.int("maximumRedirects", atLeast: 0) { maximumRedirects = redirects }
        if let ratio = try settings.int("decompressionRatioLimit", atLeast: 1) { decompressionRatioLimit = ratio }
        if let insecure = try settings.bool("insecureSkipCertificateVerification") { insecureSkipCertificateVerification = insecure }
        if let http2 = try settings.bool("allowsHTTP2") { allowsHTTP2 = http2 }
        if let retries = try settings.bool("retriesConnectionEstablishment") { retriesConnectionEstablishment = retries }
        if let preWarmed = try settings.int("preWarmedConnectionsPerHost", atLeast: 0) { preWarmedConnectionsPerHost = preWarmed }
        if let uses = try settings.intOrNone("maximumUsesPerConnection", atLeast: 1) { maximumUsesPerConnection = uses }
        if let overrides = try settings.strings("dnsOverride") {
            dnsOverride = try Dictionary(
                overrides.map { entry in
                    let parts = entry.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                    guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                        throw settings.error("dnsOverride", .invalid("a list of host:address entries"))
                    }
                    return (parts[0], parts[1])
                },
                uniquingKeysWith: { _, last in last })
        }
        if let randomizes = try settings.bool("randomizesResolution") { randomizesResolution = randomizes }
        if let spans = try settings.bool("makesClientSpans") { makesClientSpans = spans }
        if let delivery = try settings.choice(
            "completionDelivery", ["dispatchQueue": CompletionDelivery.dispatchQueue, "eventLoop": .eventLoop])
        {
            completionDelivery = delivery
        }
        if let tls = try TLSSettings.read(settings.scoped(to: "tls")) { self.tls = tls }
        if let proxy = try ProxyChoice.read(settings.scoped(to: "proxy")) { self.proxy = proxy }
    }
}
