import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Files inside the template folder, reached one folder at a time with `openat(2)` and
/// `O_NOFOLLOW`: a symbolic link below the template folder is never followed, even one swapped
/// in while Templater walks the path. (The template folder itself may be a link.)
extension FileSystem {
    /// Why a path inside the template folder could not be used.
    enum InsideError: Error, CustomStringConvertible {
        /// Something on the path, inside the template folder, is a symbolic link.
        case symbolicLink(String)
        /// A system call failed.
        case posix(POSIXFailure)
        /// The path names a FIFO, a device, a socket or a folder, not a regular file.
        case notRegularFile(String, kind: String)
        /// The file is larger than `limit` bytes.
        case tooLarge(String, limit: Int)

        var description: String {
            switch self {
            case let .symbolicLink(path):
                return "'\(path)' inside the template folder is a symbolic link (Templater never follows links inside its folder)"
            case let .notRegularFile(path, kind):
                return "'\(path)' is a \(kind), not a regular file (a template file must be one)"
            case let .tooLarge(path, limit):
                return "'\(path)' is larger than \(limit) bytes (Templater.maximumTemplateBytes)"
            case let .posix(failure):
                return failure.description
            }
        }
    }

    /// An open folder; the caller closes it.
    struct Folder {
        /// The descriptor.
        let descriptor: Int32

        /// Closes the descriptor.
        func close() { _ = systemClose(descriptor) }
    }

    /// Opens `base` (following links: it is the template folder), then each of `segments` inside
    /// it, never following a link.
    ///
    /// - Parameter create: Creates missing folders (mode 0755) instead of answering `nil`.
    /// - Returns: The innermost folder, or `nil` when one of them does not exist or is not a
    ///   folder (only when `create` is false).
    /// - Throws: `.symbolicLink` when a segment is a link; `.posix` for other failures.
    static func openFolder(
        _ base: URL, segments: some Collection<String>,
        create: Bool
    ) throws(InsideError) -> Folder? {
        var created = 0
        return try openFolder(base, segments: segments, create: create, created: &created)
    }

    /// `openFolder`, counting in `created` the folders it made (the innermost ones of `segments`).
    private static func openFolder(
        _ base: URL, segments: some Collection<String>, create: Bool,
        created: inout Int
    ) throws(InsideError) -> Folder? {
        let baseDescriptor = base.withUnsafeFileSystemRepresentation { path -> Int32 in
            guard let path else { return -1 }
            return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        if baseDescriptor < 0 {
            if errno == ENOENT, !create { return nil }
            throw .posix(POSIXFailure(call: "open \(base.path)", errno: errno))
        }
        var current = Folder(descriptor: baseDescriptor)
        var walked: [String] = []
        for segment in segments {
            walked.append(segment)
            var next = openat(current.descriptor, segment, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0, errno == ENOENT, create {
                if mkdirat(current.descriptor, segment, 0o755) == 0 {
                    created += 1
                } else if errno != EEXIST {
                    let failure = POSIXFailure(call: "mkdir \(walked.joined(separator: "/"))", errno: errno)
                    current.close()
                    throw .posix(failure)
                }
                next = openat(current.descriptor, segment, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            if next < 0 {
                let code = errno
                let isLink = isSymbolicLink(segment, in: current)
                current.close()
                if isLink { throw .symbolicLink(walked.joined(separator: "/")) }
                if !create, code == ENOENT || code == ENOTDIR { return nil }
                throw .posix(POSIXFailure(call: "open \(walked.joined(separator: "/"))", errno: code))
            }
            current.close()
            current = Folder(descriptor: next)
        }
        return current
    }

    /// Opens the folders of `segments` inside `base`, creating the missing ones (`base` must exist).
    ///
    /// - Parameter created: Set to the number of folders made, the innermost of `segments`
    ///   (even when a later step fails), for `removeEmptyFolders(_:segments:atMost:)`.
    static func openOrCreateFolder(
        _ base: URL, segments: some Collection<String>,
        created: inout Int
    ) throws(InsideError) -> Folder {
        guard let folder = try openFolder(base, segments: segments, create: true, created: &created) else {
            throw .posix(POSIXFailure(call: "open \(base.path)", errno: ENOENT))
        }
        return folder
    }

    /// Whether `name` in `folder` is a symbolic link (not following it).
    static func isSymbolicLink(_ name: String, in folder: Folder) -> Bool {
        var status = stat()
        return fstatat(folder.descriptor, name, &status, AT_SYMLINK_NOFOLLOW) == 0 && (status.st_mode & S_IFMT) == S_IFLNK
    }

    /// The bytes of the file at `segments` inside `base`, or `nil` when there is none (a missing
    /// file or folder, or a file where a folder of the path should be).
    ///
    /// The file is opened with `O_NONBLOCK` (a FIFO never blocks the open) and must be a regular
    /// file (`fstat`); it is read up to `limit` bytes.
    ///
    /// - Throws: `.symbolicLink` when the file or a folder on its path is a link;
    ///   `.notRegularFile` for a FIFO, device, socket or folder; `.tooLarge` above `limit` bytes.
    static func readFile(
        _ base: URL, segments: [String], limit: Int = Templater.maximumTemplateBytes
    ) throws(InsideError) -> Data? {
        guard let leaf = segments.last else { return nil }
        guard let folder = try openFolder(base, segments: segments.dropLast(), create: false) else { return nil }
        defer { folder.close() }
        let path = segments.joined(separator: "/")
        let descriptor = openat(folder.descriptor, leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        if descriptor < 0 {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP || isSymbolicLink(leaf, in: folder) { throw .symbolicLink(path) }
            throw .posix(POSIXFailure(call: "open", errno: code))
        }
        defer { _ = systemClose(descriptor) }
        return try readRegularFile(descriptor, path: path, limit: limit)
    }

    /// The bytes of the regular file at `path` (an absolute path; a link at its end is not
    /// followed), opened and checked as `readFile` does.
    static func readRegularFile(atPath path: String, limit: Int = Templater.maximumTemplateBytes) throws(InsideError) -> Data {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        if descriptor < 0 {
            let code = errno
            if code == ELOOP { throw .symbolicLink(path) }
            throw .posix(POSIXFailure(call: "open", errno: code))
        }
        defer { _ = systemClose(descriptor) }
        return try readRegularFile(descriptor, path: path, limit: limit)
    }

    /// Checks that `descriptor` is a regular file of at most `limit` bytes, then reads it.
    private static func readRegularFile(_ descriptor: Int32, path: String, limit: Int) throws(InsideError) -> Data {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .posix(POSIXFailure(call: "fstat", errno: errno)) }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFIFO: throw .notRegularFile(path, kind: "FIFO")
        case S_IFDIR: throw .notRegularFile(path, kind: "folder")
        case S_IFCHR, S_IFBLK: throw .notRegularFile(path, kind: "device")
        case S_IFSOCK: throw .notRegularFile(path, kind: "socket")
        default: throw .notRegularFile(path, kind: "special file")
        }
        guard status.st_size <= limit else { throw .tooLarge(path, limit: limit) }
        let data: Data
        do { data = try readAll(descriptor, limit: limit) } catch { throw .posix(error) }
        // The file may have grown since `fstat`.
        guard data.count <= limit else { throw .tooLarge(path, limit: limit) }
        return data
    }

    /// Creates the new file `name` in `folder` holding `data` (`O_EXCL`, `O_NOFOLLOW`, mode 0644),
    /// and `fsync`s it when `sync` is set.
    static func createFile(_ data: Data, named name: String, in folder: Folder, sync: Bool) throws(POSIXFailure) {
        let descriptor = openat(folder.descriptor, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw POSIXFailure(call: "open", errno: errno) }
        var failure: POSIXFailure?
        do {
            try writeAll(data, to: descriptor)
            if sync, fsync(descriptor) != 0 { failure = POSIXFailure(call: "fsync", errno: errno) }
        } catch {
            failure = error
        }
        if systemClose(descriptor) != 0, failure == nil { failure = POSIXFailure(call: "close", errno: errno) }
        if let failure { throw failure }
    }

    /// Renames `source` to `destination`, both in `folder`, with one `renameat(2)` (a link at
    /// `destination` is replaced, never followed).
    static func rename(_ source: String, to destination: String, in folder: Folder) throws(RenameError) {
        if renameat(folder.descriptor, source, folder.descriptor, destination) != 0 { throw RenameError(errno: errno) }
    }

    /// Unlinks the file `name` in `folder` (a link itself, never its target).
    ///
    /// - Returns: Whether there was something to unlink.
    @discardableResult
    static func unlink(_ name: String, in folder: Folder) throws(POSIXFailure) -> Bool {
        if unlinkat(folder.descriptor, name, 0) == 0 { return true }
        if errno == ENOENT { return false }
        throw POSIXFailure(call: "unlink", errno: errno)
    }

    /// Removes the folders of `segments` inside `base` that are empty, innermost first, at most
    /// `limit` of them, and stops at the first one that is not empty (or cannot be removed, or
    /// is a link). `base` itself is never removed.
    static func removeEmptyFolders(_ base: URL, segments: [String], atMost limit: Int = .max) {
        var depth = segments.count
        let last = max(0, segments.count - limit)
        while depth > last {
            guard let parent = try? openFolder(base, segments: segments[0..<depth - 1], create: false) else { return }
            let removed = unlinkat(parent.descriptor, segments[depth - 1], AT_REMOVEDIR) == 0
            parent.close()
            guard removed else { return }
            depth -= 1
        }
    }

    /// Writes all of `data` to `descriptor`, retrying after `EINTR`.
    static func writeAll(_ data: Data, to descriptor: Int32) throws(POSIXFailure) {
        var failure: POSIXFailure?
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count, let base = raw.baseAddress {
                let written = write(descriptor, base + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = POSIXFailure(call: "write", errno: errno)
                    return
                }
                offset += written
            }
        }
        if let failure { throw failure }
    }

    /// Reads `descriptor` to its end, or to one byte past `limit`, retrying after `EINTR`.
    static func readAll(_ descriptor: Int32, limit: Int = .max) throws(POSIXFailure) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while data.count <= limit {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXFailure(call: "read", errno: errno)
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }
}

/// `close(2)` itself, out of reach of `Folder.close`'s name.
private func systemClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
