import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A private PostgreSQL server for tests and benchmarks: its own data folder under the temporary
/// directory, trust authentication, no durability, and no TCP port: it listens on a Unix socket
/// in its folder (mode 0700), so that only this process's user (and root) can reach its
/// superuser, who needs no password — never any local user, as a port on 127.0.0.1 would allow
/// (and, through `COPY … FROM PROGRAM`, run commands as the user that started it).
///
/// ```swift
/// let cluster = try LocalPostgresCluster.start()
/// defer { cluster.stop() }
/// let one = try cluster.psql("SELECT 1")  // "1"
/// ```
///
/// PostgreSQL refuses to run as root: a process running as root runs every PostgreSQL command as
/// the `postgres` user (with `runuser`), and gives that user the cluster's folder. A cluster
/// lives until `stop()`: it is not stopped when the object goes away.
public final class LocalPostgresCluster: Sendable {
    /// The number in the name of the server's socket (`.s.PGSQL.<port>`): PostgreSQL's port,
    /// though the server opens no TCP port.
    public let port: Int
    /// The superuser, who connects without a password.
    public let username = "apilayer"
    /// The database that always exists.
    public let database = "postgres"
    /// The cluster's folder: its data, log and socket; removed by `stop()`.
    public let directory: URL

    /// The server's Unix socket, in the cluster's folder: `<directory>/.s.PGSQL.<port>`.
    public var socketPath: String { directory.appendingPathComponent(".s.PGSQL.\(port)").path }

    private let tools: PostgresTools
    private let state: LockedState<State>

    private enum State {
        case running
        case halted
        case stopped
    }

    /// The folder holding `initdb` and `pg_ctl`: the newest `/usr/lib/postgresql/*/bin`, else the
    /// one on `PATH` that has both; nil when PostgreSQL is not installed.
    public static var binDirectory: URL? {
        let manager = FileManager.default
        let root = "/usr/lib/postgresql"
        let versions = ((try? manager.contentsOfDirectory(atPath: root)) ?? [])
            .sorted { $0.compare($1, options: .numeric) == .orderedDescending }
        var candidates = versions.map { URL(fileURLWithPath: root).appendingPathComponent($0).appendingPathComponent("bin") }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        candidates += path.split(separator: ":").map { URL(fileURLWithPath: String($0)) }
        return candidates.first { folder in
            ["initdb", "pg_ctl"].allSatisfy { manager.isExecutableFile(atPath: folder.appendingPathComponent($0).path) }
        }
    }

    /// Whether PostgreSQL's server tools are installed (`binDirectory` is not nil).
    public static var isAvailable: Bool { binDirectory != nil }

    private init(port: Int, directory: URL, tools: PostgresTools) {
        self.port = port
        self.directory = directory
        self.tools = tools
        self.state = LockedState(.running)
    }

    /// Creates a cluster in a new temporary folder, starts its server on its socket there and
    /// returns once the server accepts connections.
    ///
    /// - Parameter name: The start of the temporary folder's name.
    /// - Returns: The running cluster; call `stop()` when done.
    /// - Throws: `LocalPostgresError` when PostgreSQL is not installed, or a command fails (its
    ///   description has the command and the end of its output or of the server's log).
    public static func start(name: String = "apilayer") throws -> LocalPostgresCluster {
        guard let bin = binDirectory else { throw LocalPostgresError.notInstalled }
        let tools = try PostgresTools(bin: bin)
        let directory = try tools.makeFolder(prefix: name)
        do {
            try tools.run(
                "initdb",
                ["-D", directory.appendingPathComponent("data").path, "-U", "apilayer", "--auth=trust", "-E", "UTF8", "--no-sync"],
                in: directory)
            // Each cluster's socket is in its own folder: every cluster can use the usual number.
            try tools.start(directory: directory, port: socketNumber)
            return LocalPostgresCluster(port: socketNumber, directory: directory, tools: tools)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// Stops the server (`pg_ctl -m fast stop`) and removes the cluster's folder; a second call
    /// does nothing.
    public func stop() {
        let previous = state.withLock { state in
            defer { state = .stopped }
            return state
        }
        if previous == .stopped { return }
        if previous == .running {
            _ = try? tools.run("pg_ctl", ["-D", dataPath, "-m", "fast", "-w", "stop"], in: directory)
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Kills the server as a crash would (`pg_ctl -m immediate stop`), keeping its folder:
    /// connections fail until `resume()`.
    ///
    /// - Throws: `LocalPostgresError` when the cluster is stopped or `pg_ctl` fails.
    public func halt() throws {
        try state.withLock { state in
            guard state == .running else { throw LocalPostgresError.notRunning(directory.path) }
            state = .halted
        }
        try tools.run("pg_ctl", ["-D", dataPath, "-m", "immediate", "-w", "stop"], in: directory)
    }

    /// Starts the halted server again, on the same socket and folder (it recovers as after a
    /// crash); returns once it accepts connections.
    ///
    /// - Throws: `LocalPostgresError` when the cluster was not halted or the server does not
    ///   start.
    public func resume() throws {
        try state.withLock { state in
            guard state == .halted else { throw LocalPostgresError.notHalted(directory.path) }
        }
        try tools.start(directory: directory, port: port)
        state.withLock { state in
            if state == .halted { state = .running }
        }
    }

    /// Runs `sql` with `psql` on the cluster's `postgres` database and returns what it prints,
    /// unaligned, tuples only, trimmed (`"1"` for `SELECT 1`).
    ///
    /// - Parameter sql: One or more SQL statements.
    /// - Returns: `psql`'s standard output without surrounding white space.
    /// - Throws: `LocalPostgresError.commandFailed` with `psql`'s error output.
    @discardableResult
    public func psql(_ sql: String) throws -> String {
        let output = try tools.run(
            "psql",
            ["-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", directory.path, "-p", String(port), "-U", username, "-d", database, "-c", sql],
            in: directory)
        return output.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private var dataPath: String { directory.appendingPathComponent("data").path }

    /// The number every cluster's socket is named after (PostgreSQL's usual port).
    private static let socketNumber = 5432
}

/// Why a `LocalPostgresCluster` could not do what it was asked.
public enum LocalPostgresError: Error, CustomStringConvertible {
    /// Neither `/usr/lib/postgresql/*/bin` nor `PATH` has `initdb` and `pg_ctl`.
    case notInstalled
    /// No TCP port could be reserved on 127.0.0.1 (the `errno`). No longer thrown: a cluster
    /// listens on a Unix socket in its folder.
    case noFreePort(Int32)
    /// A command failed: the command line, its exit status, and the end of its output (or of
    /// the server's log).
    case commandFailed(command: String, status: Int32, output: String)
    /// `halt()` on a cluster that is not running (its folder).
    case notRunning(String)
    /// `resume()` on a cluster that was not halted (its folder).
    case notHalted(String)

    /// One line (with the output's tail after it) a log reader understands.
    public var description: String {
        switch self {
        case .notInstalled:
            "PostgreSQL is not installed: no initdb and pg_ctl in /usr/lib/postgresql/*/bin or on PATH"
        case .noFreePort(let error):
            "no free TCP port on 127.0.0.1: \(String(cString: strerror(error)))"
        case .commandFailed(let command, let status, let output):
            "`\(command)` failed (exit \(status)):\n\(output)"
        case .notRunning(let folder):
            "the PostgreSQL cluster in \(folder) is not running"
        case .notHalted(let folder):
            "the PostgreSQL cluster in \(folder) is not halted"
        }
    }
}
