import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few file-system primitives Templater needs, with POSIX semantics spelled out.
enum FileSystem {
    /// A `rename(2)` failure, with its errno.
    struct RenameError: Error, CustomStringConvertible {
        var errno: Int32
        var isCrossDevice: Bool { errno == EXDEV }
        var description: String { String(cString: strerror(errno)) }
    }

    /// Renames `source` to `destination` with one `rename(2)`: atomic on one file system,
    /// `EXDEV` across file systems (Foundation's `moveItem` would silently copy instead).
    static func rename(_ source: URL, to destination: URL) throws(RenameError) {
        let result = source.withUnsafeFileSystemRepresentation { from in
            destination.withUnsafeFileSystemRepresentation { to -> Int32 in
                guard let from, let to else { return -1 }
                return systemRename(from, to)
            }
        }
        if result != 0 { throw RenameError(errno: errno) }
    }

    /// A hidden sibling of `url` with a unique name, in the same folder (so on the same file system).
    static func temporarySibling(of url: URL, purpose: String) -> URL {
        url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(purpose)-\(UUID().uuidString)")
    }

    /// Whether something (file, folder or dangling link) is at `url`.
    static func exists(_ url: URL) -> Bool {
        var status = stat()
        return lstat(url.path, &status) == 0
    }

    /// Whether `url` is a folder (not following a final symbolic link).
    static func isDirectory(_ url: URL) -> Bool {
        var status = stat()
        return lstat(url.path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    /// Removes `url` and everything under it; nothing there is not an error.
    static func removeIfPresent(_ url: URL) throws {
        guard exists(url) else { return }
        try FileManager.default.removeItem(at: url)
    }

    /// A failed POSIX call, with its errno.
    struct POSIXFailure: Error, CustomStringConvertible {
        var call: String
        var errno: Int32
        var description: String { "\(call): \(String(cString: strerror(errno)))" }
    }

    /// Creates a new file at `url` holding `data`: `O_EXCL` (never replaces anything), `O_NOFOLLOW`,
    /// mode 0644, and no `fsync` (Foundation's `Data.write` syncs every file, which makes
    /// unpacking a thousand templates take seconds on a busy disk).
    static func createFile(_ data: Data, at url: URL) throws(POSIXFailure) {
        let descriptor = url.withUnsafeFileSystemRepresentation { path -> Int32 in
            guard let path else { return -1 }
            return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        }
        guard descriptor >= 0 else { throw POSIXFailure(call: "open", errno: errno) }
        var failure: POSIXFailure?
        do {
            try writeAll(data, to: descriptor)
        } catch {
            failure = error
        }
        if close(descriptor) != 0, failure == nil { failure = POSIXFailure(call: "close", errno: errno) }
        if let failure { throw failure }
    }
}

/// `rename(2)` itself; at file scope the name is the C function's, not `FileSystem.rename`.
private func systemRename(_ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>) -> Int32 {
    rename(from, to)
}
