import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs PostgreSQL's commands from one `bin` folder, as the `postgres` user when this process
/// is root (initdb and postgres refuse to run as root).
struct PostgresTools: Sendable {
    /// What a command printed.
    struct Output {
        var standardOutput: String
        var standardError: String
    }

    /// The folder of `initdb`, `pg_ctl` and (usually) `psql`.
    let bin: URL
    /// The `postgres` user's uid and gid when commands run as that user, else nil.
    let runAs: (uid: uid_t, gid: gid_t)?

    init(bin: URL) throws {
        self.bin = bin
        if geteuid() == 0 {
            guard let entry = getpwnam("postgres") else {
                throw LocalPostgresError.commandFailed(
                    command: "getpwnam(\"postgres\")", status: -1,
                    output: "running as root, and there is no postgres user to run PostgreSQL as")
            }
            runAs = (entry.pointee.pw_uid, entry.pointee.pw_gid)
        } else {
            runAs = nil
        }
    }

    /// A new folder `<tmp>/<prefix>-XXXXXX` (mode 0700), owned by the user commands run as.
    /// As root it is made under /tmp, which any user can reach.
    func makeFolder(prefix: String) throws -> URL {
        let parent = runAs == nil ? NSTemporaryDirectory() : "/tmp"
        var template = Array(URL(fileURLWithPath: parent).appendingPathComponent("\(prefix)-XXXXXX").path.utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in mkdtemp(buffer.baseAddress!) != nil }
        guard made else {
            throw LocalPostgresError.commandFailed(
                command: "mkdtemp \(parent)/\(prefix)-XXXXXX", status: errno, output: String(cString: strerror(errno)))
        }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        if let runAs, chown(path, runAs.uid, runAs.gid) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: path)
            throw LocalPostgresError.commandFailed(command: "chown postgres \(path)", status: errno, output: reason)
        }
        return URL(fileURLWithPath: path, isDirectory: true)
    }

    /// Starts the server of the cluster in `directory`, on its Unix socket there named after
    /// `port`, and waits until it accepts connections (`pg_ctl -w`); a failure's output ends
    /// with the server log's tail.
    func start(directory: URL, port: Int) throws {
        // The socket alone: `listen_addresses` empty opens no TCP port.
        let options = "-p \(port) -k '\(directory.path)' -c listen_addresses='' -c fsync=off -c max_connections=100"
        let log = directory.appendingPathComponent("log")
        do {
            try run(
                "pg_ctl", ["-D", directory.appendingPathComponent("data").path, "-l", log.path, "-w", "-o", options, "start"],
                in: directory)
        } catch LocalPostgresError.commandFailed(let command, let status, let output) {
            let logText = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw LocalPostgresError.commandFailed(
                command: command, status: status, output: output + "\nserver log:\n" + Self.tail(logText))
        }
    }

    /// Runs the tool `name` (from `bin`, else from PATH) with `arguments` in `directory`, and
    /// returns what it printed.
    ///
    /// - Throws: `LocalPostgresError.commandFailed` when it cannot start or exits non-zero.
    @discardableResult
    func run(_ name: String, _ arguments: [String], in directory: URL) throws -> Output {
        var tool = bin.appendingPathComponent(name).path
        if !FileManager.default.isExecutableFile(atPath: tool) { tool = Self.onPath(name) ?? tool }
        let commandLine = ([tool] + arguments).joined(separator: " ")
        let command = runAs == nil ? [tool] + arguments : ["/usr/sbin/runuser", "-u", "postgres", "--", tool] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C"
        // Files, not pipes: the server pg_ctl starts keeps what it inherits open.
        let base = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("local-postgres-\(UUID().uuidString)")
        let outputURLs = [base.appendingPathExtension("out"), base.appendingPathExtension("err")]
        defer { for url in outputURLs { try? FileManager.default.removeItem(at: url) } }
        let status: ChildStatus
        do {
            status = try ChildProcess.run(
                command, environment: environment, directory: directory.path,
                standardOutput: outputURLs[0].path, standardError: outputURLs[1].path)
        } catch {
            throw LocalPostgresError.commandFailed(command: commandLine, status: -1, output: "\(error)")
        }
        let texts = outputURLs.map { (try? String(contentsOf: $0, encoding: .utf8)) ?? "" }
        let output = Output(standardOutput: texts[0], standardError: texts[1])
        guard status == .exited(0) else {
            throw LocalPostgresError.commandFailed(
                command: commandLine, status: status.code, output: Self.tail(output.standardError + output.standardOutput))
        }
        return output
    }

    /// The last lines of `text`, for an error's description.
    static func tail(_ text: String, lines: Int = 20) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// The executable `name` in a folder of PATH.
    static func onPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// A value behind a lock, changed only inside `withLock`.
final class LockedState<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` on the value with the lock held.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&value) }
    }
}
