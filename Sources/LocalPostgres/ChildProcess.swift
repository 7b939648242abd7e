import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a child process ended.
enum ChildStatus: Equatable {
    /// It exited with this status.
    case exited(Int32)
    /// A signal (this number) ended it.
    case signalled(Int32)

    /// The exit status, or minus the signal's number.
    var code: Int32 {
        switch self {
        case .exited(let status): status
        case .signalled(let signal): -signal
        }
    }
}

/// Runs a command with `posix_spawn` and waits for it with `waitpid`.
///
/// Not Foundation's `Process`: on Linux it learns that its child ended when a socket the child
/// inherits closes, and `pg_ctl start` hands that socket to the server it starts, which outlives
/// it: `waitUntilExit()` never returns. Here the child inherits only its standard input (from
/// /dev/null), output and error (to files).
enum ChildProcess {
    /// A failure to start the command (the `errno` of `posix_spawn`).
    struct SpawnError: Error, CustomStringConvertible {
        /// The program that did not start.
        var executable: String
        /// The `errno`.
        var error: Int32

        /// One line: the program and the system's reason.
        var description: String { "cannot run \(executable): \(String(cString: strerror(error)))" }
    }

    /// Runs `command` (its first element is the program's path) in `directory`, with its output
    /// and error written to the files at those paths, and waits until it ends.
    static func run(
        _ command: [String], environment: [String: String], directory: String, standardOutput: String, standardError: String
    ) throws -> ChildStatus {
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, standardOutput, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, standardError, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #if canImport(Darwin)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_CLOEXEC_DEFAULT))
        #else
        _ = addCloseFrom?(&actions, 3)
        #endif

        // The shell moves to `directory`, then becomes the command (posix_spawn's chdir action is
        // not in Swift's view of Glibc).
        let wrapped = ["/bin/sh", "-c", #"cd "$0" && exec "$@""#, directory] + command
        let arguments = wrapped.map { strdup($0) } + [nil]
        let variables = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in arguments + variables { free(pointer) }
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, wrapped[0], &actions, &attributes, arguments, variables)
        guard spawned == 0 else { throw SpawnError(executable: command[0], error: spawned) }

        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw SpawnError(executable: command[0], error: errno) }
        }
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }

    #if !canImport(Darwin)
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
    /// module does not declare: the child closes every descriptor from the given one up. Nil on
    /// an older glibc, where the child inherits what is not close-on-exec.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            return nil
        }
        return unsafeBitCast(
            symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
    #endif
}
