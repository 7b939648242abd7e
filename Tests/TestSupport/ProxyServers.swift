import Foundation

/// A proxy server a test starts for itself: tinyproxy (an HTTP proxy that tunnels `CONNECT`) or
/// microsocks (SOCKS5), on a free loopback port, from a temporary folder of its own; `stop()`
/// ends it and removes the folder.
public final class ProxyServer: Sendable {
    /// The proxy's port on 127.0.0.1.
    public let port: Int
    /// tinyproxy's log (one line per connection and `CONNECT`), empty for microsocks.
    public let logFile: URL
    private let process: Process
    private let folder: URL

    /// Why a proxy could not be started.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong, and how to install what is missing.
        public let description: String
    }

    /// Where the fixture looks for tinyproxy.
    public static let tinyproxyPath = "/usr/bin/tinyproxy"
    /// Where the fixture looks for microsocks.
    public static let microsocksPath = "/usr/bin/microsocks"

    /// tinyproxy, asking for `credentials` (user, password) when given, and opening tunnels only
    /// to `connectPorts` when given (any port otherwise).
    /// `executable` replaces the installed tinyproxy (a test of a proxy that fails to start).
    public static func tinyproxy(
        credentials: (String, String)? = nil, connectPorts: [Int] = [], executable: String = tinyproxyPath
    ) throws -> ProxyServer {
        try ProxyServer(.tinyproxy, executable: executable) { folder, port in
            var lines = [
                "Port \(port)", "Listen 127.0.0.1", "Timeout 60", "MaxClients 200", "LogLevel Info",
                "LogFile \"\(folder.path)/proxy.log\"", "PidFile \"\(folder.path)/proxy.pid\"",
            ]
            if let (user, password) = credentials { lines.append("BasicAuth \(user) \(password)") }
            lines += connectPorts.map { "ConnectPort \($0)" }
            let file = folder.appendingPathComponent("tinyproxy.conf")
            try Data(lines.joined(separator: "\n").utf8).write(to: file)
            return ["-d", "-c", file.path]
        }
    }

    /// microsocks, a SOCKS5 proxy without authentication.
    public static func socks5() throws -> ProxyServer {
        try ProxyServer(.microsocks, executable: microsocksPath) { _, port in
            ["-i", "127.0.0.1", "-p", "\(port)"]
        }
    }

    private init(_ server: RealServer, executable: String, arguments: (URL, Int) throws -> [String]) throws {
        guard RealServer.isExecutableRegularFile(atPath: executable) else {
            throw Failure(description: "\(executable) is missing: \(server.missingDescription)")
        }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // tinyproxy drops to `nobody` when started as root: its log must be writable by it.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.path)
        port = try unusedPort()
        logFile = folder.appendingPathComponent("proxy.log")
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = try arguments(folder, port)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date(timeIntervalSinceNow: 10)
        while !loopbackAccepts(port: port) {
            guard process.isRunning, Date() < deadline else {
                stop()
                throw Failure(description: "\(executable) did not start on port \(port)")
            }
            usleep(20_000)
        }
    }

    deinit { stop() }

    /// What tinyproxy logged so far.
    public func log() -> String {
        (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
    }

    /// The request lines tinyproxy received so far (`CONNECT 127.0.0.1:8080 HTTP/1.1`, or a
    /// forwarded `GET http://…`).
    public func requests() -> [String] {
        log().split(separator: "\n").compactMap { line in
            line.range(of: "Request (file descriptor").flatMap { found in
                line[found.upperBound...].split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) }
            }
        }
    }

    /// Stops the proxy and removes its folder. tinyproxy waits for its open connections on
    /// SIGTERM; after a second it is killed.
    public func stop() {
        if process.isRunning {
            process.terminate()
            let deadline = Date(timeIntervalSinceNow: 1)
            while process.isRunning, Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }
}
