import Configuration
import Foundation
import NetOps

@available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
extension ProxyChoice {
    /// The choice read from `configReader` (scoped to its section, e.g. `tracker.proxy`), or nil
    /// when the section has no key (the session's choice stands).
    ///
    /// ## Configuration keys
    /// - `mode` (string): `direct`, `environment` (the process's `http_proxy`, `HTTPS_PROXY`,
    ///   `NO_PROXY`, read now), `http` (an HTTP proxy reached with `CONNECT`) or `socks5`;
    ///   required when any other key of the section is given.
    /// - `host` (string): the proxy's host; required for `http` and `socks5`.
    /// - `port` (int, 1–65535): the proxy's port; required for `http`, 1080 by default for `socks5`.
    /// - `username` (string, optional), `password` (string, **secret**, optional): an HTTP
    ///   proxy's credentials, both or neither; a SOCKS5 proxy takes none.
    ///
    /// - Throws: `ConfigurationError` naming the key that is missing or wrong; the password's
    ///   value is read as a secret and never appears in an error or a description.
    public init?(configReader: ConfigReader) throws {
        guard let choice = try Self.read(ConfigSettingsReader(configReader)) else { return nil }
        self = choice
    }

    /// The choice the section's keys give; nil when it has none of them.
    package static func read(_ section: ConfigSettingsReader) throws -> ProxyChoice? {
        enum Mode { case direct, environment, http, socks5 }
        let mode = try section.choice("mode", ["direct": Mode.direct, "environment": .environment, "http": .http, "socks5": .socks5])
        let host = try section.string("host")
        let port = try section.int("port", atLeast: 1, atMost: 65_535)
        let username = try section.string("username")
        let password = try section.string("password", isSecret: true)
        guard let mode else {
            let given: [Any?] = [host, port, username, password]
            if given.contains(where: { $0 != nil }) { throw section.error("mode", .missing) }
            return nil
        }
        switch mode {
        case .direct:
            return .direct
        case .environment:
            return .fromEnvironment()
        case .http:
            let host = try section.required("host", host.flatMap { $0.isEmpty ? nil : $0 })
            let port = try section.required("port", port)
            switch (username, password) {
            case (nil, nil):
                return .through(.http(host: host, port: port))
            case let (username?, password?):
                return .through(.http(host: host, port: port, credentials: .init(username: username, password: password)))
            case (nil, _?):
                throw section.error("username", .missing)
            case (_?, nil):
                throw section.error("password", .missing)
            }
        case .socks5:
            if username != nil { throw section.error("username", .invalid("absent: a SOCKS5 proxy takes no credentials")) }
            if password != nil { throw section.error("password", .invalid("absent: a SOCKS5 proxy takes no credentials")) }
            return .through(.socks5(host: try section.required("host", host.flatMap { $0.isEmpty ? nil : $0 }), port: port ?? 1080))
        }
    }
}
