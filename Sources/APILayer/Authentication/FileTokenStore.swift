import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Keeps the token in a JSON file that only the service's user can read.
///
/// The folder is created with mode 0700 and the file with 0600. A save writes a new file beside
/// the old one (named `.<file name>.<UUID>.tmp`), flushes it to disk (`fsync`), renames it over
/// the old one and flushes the folder, so a crash at any point leaves either the old token or
/// the new one, never a torn file; a temporary file older than `staleTemporaryAge` (left by a
/// crash) is deleted by the next load or save.
///
/// The store trusts nothing it finds on disk: a folder or a file that is a symbolic link is
/// refused (the folder is changed through a descriptor opened with `O_NOFOLLOW`, so a link
/// swapped in meanwhile is not followed either), and a file is loaded only when it is a regular
/// file owned by the process's user, readable by no one else and at most `maximumFileSize`
/// bytes. A refusal throws `TokenStoreError.insecure`, naming the path and why, never the
/// file's contents.
public struct FileTokenStore: TokenStore {
    /// The largest token file loaded: 1 MiB (a token is a few kilobytes at most).
    public static let maximumFileSize = 1 << 20
    /// How old a temporary file must be before a load or save deletes it: 60 s, far longer than
    /// a save takes, so a save in flight in another process is never disturbed.
    public static let staleTemporaryAge: TimeInterval = 60

    /// The token file.
    public let fileURL: URL

    /// A store at `fileURL`.
    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    /// The file's path: two stores of the same file are the same store.
    public var storeIdentity: String? { "file:" + fileURL.standardizedFileURL.path }

    /// A store at `~/.local/share/<service>/token.json` (or under `$XDG_DATA_HOME`).
    public init(service: String) {
        let environment = ProcessInfo.processInfo.environment
        let base =
            environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        self.init(fileURL: base.appendingPathComponent(service).appendingPathComponent("token.json"))
    }

    /// The stored token, nil when there is no file.
    ///
    /// - Throws: `TokenStoreError.insecure` when the file is a symbolic link, not a regular file,
    ///   owned by another user, readable or writable by group or others, or larger than
    ///   `maximumFileSize`; `.corrupt` when it is not a token; `.io` when it cannot be read.
    public func load() throws -> Token? {
        removeStaleTemporaryFiles()
        let descriptor = open(fileURL.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            if errno == ELOOP { throw insecure("the token file is a symbolic link") }
            throw ioError("open")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw ioError("stat") }
        try checkOwnedAndPrivate(status, what: "token file", kind: Self.regularFileType)
        guard Int(status.st_size) <= Self.maximumFileSize else {
            throw insecure("the token file holds \(status.st_size) bytes, more than the limit of \(Self.maximumFileSize)")
        }
        let data = try readAll(descriptor)
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            return try decoder.decode(Token.self, from: data)
        } catch {
            throw TokenStoreError.corrupt(path: fileURL.path, reason: "not a token (\(data.count) bytes)")
        }
    }

    /// Writes `token` atomically and durably with mode 0600 in a 0700 folder.
    ///
    /// - Throws: `TokenStoreError.insecure` when the folder is a symbolic link, not a folder or
    ///   owned by another user; `.io` when it cannot be written.
    public func save(_ token: Token) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(token)
        let folder = try openFolder(creating: true)
        defer { close(folder) }
        removeStaleTemporaryFiles(in: folder)
        let name = fileURL.lastPathComponent
        let temporary = "\(Self.temporaryPrefix(of: name))\(UUID().uuidString)\(Self.temporarySuffix)"
        let descriptor = openat(folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw ioError("create \(temporary)") }
        var written = 0
        let writeFailed = data.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let result = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    return true
                }
                written += result
            }
            return false
        }
        if writeFailed || fsync(descriptor) != 0 {
            let error = ioError("write")
            close(descriptor)
            unlinkat(folder, temporary, 0)
            throw error
        }
        close(descriptor)
        guard renameat(folder, temporary, folder, name) == 0 else {
            let error = ioError("rename")
            unlinkat(folder, temporary, 0)
            throw error
        }
        fsync(folder)
    }

    /// Deletes the token file.
    public func remove() throws {
        guard unlink(fileURL.path) == 0 || errno == ENOENT || errno == ENOTDIR else { throw ioError("remove") }
    }

    // MARK: Checks

    private static let fileTypeMask: mode_t = 0o170000
    private static let regularFileType: mode_t = 0o100000
    private static let directoryType: mode_t = 0o040000
    private static let temporarySuffix = ".tmp"

    /// How the temporary copies of the file `name` begin: `.<name>.`.
    static func temporaryPrefix(of name: String) -> String { ".\(name)." }

    /// Opens the token's folder without following a symbolic link, creating it (0700) when
    /// asked, checks that the process's user owns it and sets its mode to 0700 through the
    /// descriptor — except a shared folder with the sticky bit, such as /tmp, left as it is.
    private func openFolder(creating: Bool) throws -> Int32 {
        let directory = fileURL.deletingLastPathComponent()
        var descriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if descriptor < 0, errno == ENOENT, creating {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw TokenStoreError.io(path: directory.path, reason: (error as NSError).localizedDescription)
            }
            descriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        }
        guard descriptor >= 0 else {
            if errno == ELOOP || errno == ENOTDIR {
                throw TokenStoreError.insecure(path: directory.path, reason: "the token's folder is a symbolic link or not a folder")
            }
            throw TokenStoreError.io(path: directory.path, reason: "open folder: \(String(cString: strerror(errno)))")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            close(descriptor)
            throw ioError("stat folder")
        }
        guard status.st_uid == geteuid() else {
            close(descriptor)
            throw TokenStoreError.insecure(
                path: directory.path, reason: "the token's folder belongs to user \(status.st_uid), not to this process's user \(geteuid())")
        }
        // A shared folder with the sticky bit (/tmp) is never changed: others keep using it, and
        // the sticky bit already stops them from removing or renaming this process's files.
        let sticky = status.st_mode & 0o1000 != 0
        guard sticky || fchmod(descriptor, 0o700) == 0 else {
            close(descriptor)
            throw ioError("chmod folder")
        }
        return descriptor
    }

    /// Refuses a file that is not of `kind`, belongs to another user, or that group or others
    /// may read or write.
    private func checkOwnedAndPrivate(_ status: stat, what: String, kind: mode_t) throws {
        guard status.st_mode & Self.fileTypeMask == kind else { throw insecure("the \(what) is not a regular file") }
        guard status.st_uid == geteuid() else {
            throw insecure("the \(what) belongs to user \(status.st_uid), not to this process's user \(geteuid())")
        }
        let shared = status.st_mode & 0o077
        guard shared == 0 else {
            throw insecure("the \(what) is open to group or others (mode \(String(status.st_mode & 0o777, radix: 8)); it must be 600)")
        }
    }

    /// Reads the descriptor to its end, at most `maximumFileSize` bytes (the file may grow
    /// between the check of its size and the read).
    private func readAll(_ descriptor: Int32) throws -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ioError("read")
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
            if data.count > Self.maximumFileSize {
                throw insecure("the token file holds more than the limit of \(Self.maximumFileSize) bytes")
            }
        }
    }

    /// Deletes temporary copies older than `staleTemporaryAge` that a crash left beside the
    /// file. Quietly does nothing when the folder cannot be opened.
    private func removeStaleTemporaryFiles() {
        let directory = fileURL.deletingLastPathComponent()
        let folder = open(directory.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else { return }
        defer { close(folder) }
        removeStaleTemporaryFiles(in: folder)
    }

    private func removeStaleTemporaryFiles(in folder: Int32) {
        let prefix = Self.temporaryPrefix(of: fileURL.lastPathComponent)
        let directory = fileURL.deletingLastPathComponent().path
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        let now = Date().timeIntervalSince1970
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(Self.temporarySuffix) {
            var status = stat()
            guard fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            let modified = Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
            guard now - modified >= Self.staleTemporaryAge else { continue }
            unlinkat(folder, name, 0)
        }
    }

    private func insecure(_ reason: String) -> TokenStoreError {
        TokenStoreError.insecure(path: fileURL.path, reason: reason)
    }

    private func ioError(_ step: String) -> TokenStoreError {
        TokenStoreError.io(path: fileURL.path, reason: "\(step): \(String(cString: strerror(errno)))")
    }
}
