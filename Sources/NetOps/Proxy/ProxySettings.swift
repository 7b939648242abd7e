import Foundation

/// A proxy the requests of an API (or a session, or one operation) go through: an HTTP proxy
/// reached with `CONNECT` (the request travels in a tunnel; with https the proxy sees only the
/// host and port), or a SOCKS5 proxy.
///
/// The proxy's credentials go to the proxy alone, in the `CONNECT` request's
/// `Proxy-Authorization`; the API's token travels inside the tunnel, never in a header the proxy
/// reads. Descriptions and logs show the user name and `<redacted>` for the password.
public struct ProxySettings: Sendable, Hashable, CustomStringConvertible {
    /// How the proxy is spoken to.
    public enum Kind: String, Sendable, Hashable {
        /// An HTTP proxy that opens a tunnel on `CONNECT host:port`.
        case httpConnect = "http"
        /// A SOCKS5 proxy (RFC 1928), without authentication.
        case socks5
    }

    /// A user name and password for an HTTP proxy (`Proxy-Authorization: Basic`).
    public struct Credentials: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
        /// The user name.
        public var username: String
        /// The password; never printed.
        public var password: String

        /// Credentials of `username` and `password`.
        public init(username: String, password: String) {
            self.username = username
            self.password = password
        }

        /// `username:<redacted>`.
        public var description: String { "\(username):<redacted>" }

        /// The user name and `<redacted>`: `dump()` and debuggers never show the password.
        public var customMirror: Mirror { Mirror(self, children: ["username": username, "password": "<redacted>"]) }
    }

    /// How the proxy is spoken to.
    public var kind: Kind
    /// The proxy's host name or address.
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// The credentials an HTTP proxy asks for, if any.
    public var credentials: Credentials?

    /// An HTTP proxy reached with `CONNECT`, with credentials if it asks for them.
    public static func http(host: String, port: Int, credentials: Credentials? = nil) -> ProxySettings {
        ProxySettings(kind: .httpConnect, host: host, port: port, credentials: credentials)
    }

    /// A SOCKS5 proxy.
    public static func socks5(host: String, port: Int) -> ProxySettings {
        ProxySettings(kind: .socks5, host: host, port: port, credentials: nil)
    }

    /// `http://user:<redacted>@proxy.internal:3128`, say.
    public var description: String {
        let user = credentials.map { "\($0)@" } ?? ""
        return "\(kind.rawValue)://\(user)\(host):\(port)"
    }
}
