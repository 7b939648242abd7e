import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Keeps the token in a JSON file that only the service's user can read.
///
/// The folder is created with mode 0700 and the file with 0600. A save writes a new file beside
/// the old one, flushes it to disk (`fsync`), renames it over the old one and flushes the
/// folder, so a crash at any point leaves either the old token or the new one, never a torn file.
public struct FileTokenStore: TokenStore {
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
    /// - Throws: `TokenStoreError.corrupt` when the file is not a token, `.io` when it cannot be read.
    public func load() throws -> Token? {
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return nil
        } catch {
            if !FileManager.default.fileExists(atPath: fileURL.path) { return nil }
            throw TokenStoreError.io(path: fileURL.path, reason: (error as NSError).localizedDescription)
        }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            return try decoder.decode(Token.self, from: data)
        } catch {
            throw TokenStoreError.corrupt(path: fileURL.path, reason: "not a token (\(data.count) bytes)")
        }
    }

    /// Writes `token` atomically and durably with mode 0600 in a 0700 folder.
    public func save(_ token: Token) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(token)
        let directory = fileURL.deletingLastPathComponent()
        try makeDirectory(directory)
        let temporary = directory.appendingPathComponent(".\(fileURL.lastPathComponent).\(UUID().uuidString).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ioError("create \(temporary.lastPathComponent)") }
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
            unlink(temporary.path)
            throw error
        }
        close(descriptor)
        guard rename(temporary.path, fileURL.path) == 0 else {
            let error = ioError("rename")
            unlink(temporary.path)
            throw error
        }
        let directoryDescriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    /// Deletes the token file.
    public func remove() throws {
        guard unlink(fileURL.path) == 0 || errno == ENOENT else { throw ioError("remove") }
    }

    private func makeDirectory(_ directory: URL) throws {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw TokenStoreError.io(path: directory.path, reason: (error as NSError).localizedDescription)
            }
        }
        guard chmod(directory.path, 0o700) == 0 else { throw ioError("chmod folder") }
    }

    private func ioError(_ step: String) -> TokenStoreError {
        TokenStoreError.io(path: fileURL.path, reason: "\(step): \(String(cString: strerror(errno)))")
    }
}
