import Foundation
import LocalPostgres

/// A real server or tool some suites start for themselves, which a machine with only Swift may
/// lack: such a suite carries ``Testing/Trait/requires(_:sourceLocation:)`` and is skipped where
/// its server is missing, unless the environment asks for every server (``isRequired``).
///
/// A server that is installed but fails to start is never skipped: its fixture throws, and the
/// test fails with the server's own words.
public enum RealServer: String, CaseIterable, Sendable, CustomStringConvertible {
    /// nginx (`/usr/sbin/nginx`, or `APILAYER_NGINX`): TLS, HTTP/2, `bench engines --server nginx`.
    case nginx
    /// `/usr/bin/openssl`: the certificates of every TLS fixture.
    case openssl
    /// `/usr/bin/tinyproxy`: an HTTP proxy that tunnels `CONNECT`.
    case tinyproxy
    /// `/usr/bin/microsocks`: a SOCKS5 proxy.
    case microsocks
    /// PostgreSQL's server tools (`initdb`, `pg_ctl`), as ``LocalPostgresCluster`` finds them.
    case postgresql
    /// `zip` (Info-ZIP): the archives the Templater's tests unpack are made by it.
    case zip
    /// `python3`: hostile and unusual zip archives (`zipfile`), and files of known types.
    case python3

    /// The variable that turns every skip for a missing server into a failure (CI sets it).
    public static let requireAllVariable = "APILAYER_REQUIRE_SERVERS"
    /// The variable that does so for PostgreSQL alone.
    public static let requirePostgresVariable = "APILAYER_REQUIRE_POSTGRES"

    /// The server's name.
    public var description: String { rawValue }

    /// The Debian package that installs it.
    public var package: String {
        switch self {
        case .nginx: return "nginx-light"
        case .openssl, .tinyproxy, .microsocks, .postgresql, .zip, .python3: return rawValue
        }
    }

    /// Whether the server is here: its executables exist and are executable regular files (a
    /// path bound to `/dev/null` or a folder does not count).
    public var isInstalled: Bool {
        switch self {
        case .nginx: return Self.isExecutableRegularFile(atPath: TLSNginx.executable)
        case .openssl: return Self.isExecutableRegularFile(atPath: TestCertificates.opensslPath)
        case .tinyproxy: return Self.isExecutableRegularFile(atPath: ProxyServer.tinyproxyPath)
        case .microsocks: return Self.isExecutableRegularFile(atPath: ProxyServer.microsocksPath)
        case .zip, .python3: return Self.executableInPath(rawValue) != nil
        case .postgresql:
            guard let bin = LocalPostgresCluster.binDirectory else { return false }
            return ["initdb", "pg_ctl"].allSatisfy { Self.isExecutableRegularFile(atPath: bin.appendingPathComponent($0).path) }
        }
    }

    /// Whether `environment` asks for this server: its absence then fails the tests that need it
    /// instead of skipping them.
    public func isRequired(in environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        Self.isSet(environment[Self.requireAllVariable]) || (self == .postgresql && Self.isSet(environment[Self.requirePostgresVariable]))
    }

    /// The error a fixture throws when the server is missing: what is missing and how to install it.
    public var missingDescription: String {
        "\(rawValue) is not installed: install it with `apt-get install -y \(package)`"
    }

    /// Whether `path` names a regular file (after symbolic links) that this process may execute.
    public static func isExecutableRegularFile(atPath path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return false }
        return access(path, X_OK) == 0
    }

    /// The first executable regular file named `name` in the folders of `PATH`, as `/usr/bin/env`
    /// finds it.
    public static func executableInPath(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let folders = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.lazy.map { "\($0)/\(name)" }.first { isExecutableRegularFile(atPath: $0) }
    }

    /// A variable counts as set unless it is absent, empty or `0`.
    private static func isSet(_ value: String?) -> Bool {
        guard let value else { return false }
        return !value.isEmpty && value != "0"
    }
}
