import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file that holds a secret — a client secret, a sealing key, a TLS private key — as a
/// token file is read: through one descriptor, a regular file only (a FIFO or a device is
/// refused without blocking), no larger than `maximumBytes`, and, for a secret, not open to
/// others.
///
/// A secret file may be owned by the process's user or by root, and its group may read it:
/// a Kubernetes secret mounted with `defaultMode: 0440` and `fsGroup` is owned by root and
/// read through the group. Others may not read it, and no one but its owner may write it (a
/// writer could swap the key). Symbolic links are followed: a mounted secret is one.
package enum SecretFile {
    /// The largest secret file read: 1 MiB, as for a token file (a key or a secret is a few
    /// hundred bytes; a certificate chain a few KiB).
    package static let maximumBytes = 1 << 20

    /// Why a file cannot be used: a sentence naming the path and, for a mode, the mode; never
    /// the content.
    package struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// The sentence.
        package let description: String
        /// Whether the file does not exist.
        package let isMissing: Bool
    }

    /// The bytes of the file at `path`.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - checksAccess: Whether the owner and mode are checked (false for public material:
    ///     certificates).
    ///   - limit: The most bytes read.
    /// - Throws: `Refusal` saying why the file cannot be used.
    package static func read(_ path: String, checksAccess: Bool = true, limit: Int = maximumBytes) throws(Refusal) -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            if errno == ENOENT { throw Refusal(description: "no such file: \(path)", isMissing: true) }
            throw refusal("the file cannot be read: \(path) (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw refusal("the file cannot be read: \(path) (\(String(cString: strerror(errno))))")
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw refusal("a folder, not a file: \(path)")
        default: throw refusal("not a regular file (a FIFO, a device or a socket): \(path)")
        }
        if checksAccess {
            guard status.st_uid == geteuid() || status.st_uid == 0 else {
                throw refusal("the file belongs to user \(status.st_uid), neither this process's user \(geteuid()) nor root: \(path)")
            }
            guard status.st_mode & 0o027 == 0 else {
                let mode = String(status.st_mode & 0o777, radix: 8)
                throw refusal(
                    "the file is open to others (mode \(mode)): a secret must be readable by its owner (and group) only, "
                        + "and writable by its owner only (chmod 600, or 440 for a group): \(path)")
            }
        }
        guard Int(status.st_size) <= limit else {
            throw refusal("the file holds \(status.st_size) bytes, more than the limit of \(limit) bytes: \(path)")
        }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw refusal("the file cannot be read: \(path) (\(String(cString: strerror(errno))))") }
            if count == 0 { break }
            data.append(contentsOf: chunk[0..<count])
            guard data.count <= limit else { throw refusal("the file holds more than the limit of \(limit) bytes: \(path)") }
        }
        return data
    }

    private static func refusal(_ text: String) -> Refusal {
        Refusal(description: text, isMissing: false)
    }
}

/// `read(2)`, under a name `SecretFile.read` does not hide.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(descriptor, buffer, count)
    #else
    Darwin.read(descriptor, buffer, count)
    #endif
}
