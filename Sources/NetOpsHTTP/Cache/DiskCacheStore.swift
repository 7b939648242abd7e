import Crypto
import Dispatch
import Foundation
import NetOps

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The responses an `HTTPCache` keeps in a folder, within a byte bound, across restarts.
///
/// One file per entry, named by the SHA-256 of its key (URL and partition digest). Neither the
/// URL nor a request header is written to a name or a file: a token in the query or a password
/// in the URL's user info would be there in clear; the file holds the URL's digest, which is
/// checked on read. Files are written by a serial queue of the store's own, never on the thread
/// that delivered the response: to a temporary file (mode 0600) renamed over the old one, so a
/// reader sees the old entry or the new one. A file that cannot be read back whole and exactly
/// (wrong magic, a header that does not decode, a key that is not the one asked for, a body of
/// another length, a field no server could have sent) is deleted, never served. The least recently used files go first when the
/// folder outgrows its bound; files older than `maximumAge`, and files of an older format, are
/// deleted when the folder is opened.
final class DiskCacheStore: Sendable {
    private struct Header: Codable {
        /// The SHA-256 of the entry's URL, as lower-case hex: never the URL itself.
        var urlDigest: String
        var partition: String
        var status: Int
        var httpVersion: String
        var fields: [CachedResponse.Field]
        var requestTime: Date
        var responseTime: Date
        var bodyBytes: Int
    }

    private struct FileInfo {
        var bytes: Int
        var lastUse: UInt64
    }

    private struct Index {
        var files: [String: FileInfo] = [:]
        var bytes = 0
        var tick: UInt64 = 0
    }

    private static let magic = Data("APILayerCache2\n".utf8)
    /// What every entry file's name ends with; `.entry` alone: a file of the first format,
    /// which held the URL in clear.
    private static let suffix = ".c2.entry"
    private static let formerSuffix = ".entry"
    private static let maximumHeaderBytes = 1 << 20

    let directory: URL
    let maximumBytes: Int
    /// The oldest a file may be when the folder is opened (by its modification time: when the
    /// entry was written).
    let maximumAge: TimeInterval
    private let maximumFreshness: TimeInterval
    private let index = Locked(Index())
    /// Where files are written, one after another.
    let writer = DispatchQueue(label: "APILayer.HTTPCache.disk")
    /// Where files are read (`HTTPCache` looks up an entry here, never on the thread that
    /// starts a transfer).
    let reader = DispatchQueue(label: "APILayer.HTTPCache.disk.read")
    /// The bytes of the entries waiting for the writer, and the most it may hold: past it, a
    /// write is skipped (the entry stays in memory).
    private let pending = Locked(0)
    let maximumPendingBytes: Int
    /// Called (on the writer queue) when a write failed: the folder is full or read-only.
    private let onWriteFailure: @Sendable (String) -> Void
    /// Called when a write is skipped because the writer is `maximumPendingBytes` behind.
    private let onWriteSkipped: @Sendable () -> Void

    /// Opens (or makes, mode 0700) the folder and indexes the entries in it, deleting those
    /// older than `maximumAge` and those of an older format; throws when it is not a folder of
    /// this user's that only this user may write to.
    init(
        directory: URL, maximumBytes: Int, maximumFreshness: TimeInterval, maximumAge: TimeInterval = .infinity,
        maximumPendingBytes: Int = 32 << 20, onWriteSkipped: @escaping @Sendable () -> Void = {},
        onWriteFailure: @escaping @Sendable (String) -> Void
    ) throws(HTTPCacheError) {
        self.directory = directory
        self.maximumBytes = maximumBytes
        self.maximumAge = maximumAge
        self.maximumFreshness = maximumFreshness
        self.maximumPendingBytes = maximumPendingBytes
        self.onWriteSkipped = onWriteSkipped
        self.onWriteFailure = onWriteFailure
        let path = directory.path
        var status = stat()
        if lstat(path, &status) != 0 {
            guard errno == ENOENT else { throw .unusableDirectory(path: path, reason: String(cString: strerror(errno))) }
            do {
                try FileManager.default.createDirectory(
                    at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw .unusableDirectory(path: path, reason: "cannot be made (\(error.localizedDescription))")
            }
            guard lstat(path, &status) == 0 else { throw .unusableDirectory(path: path, reason: String(cString: strerror(errno))) }
        }
        guard (status.st_mode & S_IFMT) == S_IFDIR else {
            throw .unusableDirectory(path: path, reason: "is not a folder (a symbolic link or a file)")
        }
        guard status.st_uid == geteuid() else { throw .unusableDirectory(path: path, reason: "belongs to another user") }
        guard status.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            throw .unusableDirectory(path: path, reason: "others may write to it (mode \(String(status.st_mode & 0o777, radix: 8)))")
        }
        var found = Index()
        var stale: [String] = []
        let oldest = Double(time(nil)) - maximumAge
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        for name in names {
            let file = directory.appendingPathComponent(name)
            if name.hasPrefix(".tmp-") {
                // A write cut short by a crash.
                try? FileManager.default.removeItem(at: file)
                continue
            }
            guard name.hasSuffix(Self.formerSuffix), lstat(file.path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { continue }
            // A file of the first format (its URL in clear), or one written too long ago.
            guard name.hasSuffix(Self.suffix), Double(Self.modificationTime(status)) >= oldest else {
                stale.append(name)
                continue
            }
            // Older files first out: the index starts ordered by modification time.
            found.files[name] = FileInfo(bytes: Int(status.st_size), lastUse: UInt64(max(0, Self.modificationTime(status))))
            found.bytes += Int(status.st_size)
        }
        // Uses from now on count after every file found.
        found.tick = found.files.values.map(\.lastUse).max() ?? 0
        index.withLock { $0 = found }
        writer.async { [stale] in
            for name in stale { unlink(directory.appendingPathComponent(name).path) }
            self.trim()
        }
    }

    /// Bytes the indexed files hold.
    var bytes: Int { index.withLock { $0.bytes } }

    /// Files indexed.
    var count: Int { index.withLock { $0.files.count } }

    /// Bytes of the entries waiting to be written.
    var pendingBytes: Int { pending.withLock { $0 } }

    /// Whether a file for `url` and `partition` is indexed.
    func holds(url: String, partition: String) -> Bool {
        let name = Self.fileName(url: url, partition: partition)
        return index.withLock { $0.files[name] != nil }
    }

    /// The entry stored for `url` and `partition`, read from its file; nil when there is none
    /// or its file is not a whole, exact entry (then it is deleted).
    func entry(url: String, partition: String) -> CachedResponse? {
        let name = Self.fileName(url: url, partition: partition)
        let known = index.withLock { index -> Bool in
            guard index.files[name] != nil else { return false }
            index.tick += 1
            index.files[name]?.lastUse = index.tick
            return true
        }
        guard known else { return nil }
        let file = directory.appendingPathComponent(name)
        guard let data = readFile(file.path), let entry = decode(data, url: url, partition: partition) else {
            discard(name)
            return nil
        }
        return entry
    }

    /// The bytes of the regular file at `path`, at most `maximumBytes` of them; nil for anything
    /// else. Opened without following a link and without blocking (a FIFO put in its place
    /// would hold the reader until someone writes to it).
    private func readFile(_ path: String) -> Data? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, Int(status.st_size) <= maximumBytes else { return nil }
        var data = Data(count: Int(status.st_size))
        let complete = data.withUnsafeMutableBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let count = systemRead(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        return complete ? data : nil
    }

    /// Writes `entry` in the background, unless the writes waiting hold `maximumPendingBytes`
    /// already: then it is skipped (the folder is slower than the answers arrive).
    func store(_ entry: CachedResponse) {
        let size = entry.byteCount
        let accepted = pending.withLock { pending -> Bool in
            guard pending + size <= maximumPendingBytes else { return false }
            pending += size
            return true
        }
        guard accepted else {
            onWriteSkipped()
            return
        }
        writer.async {
            self.write(entry)
            self.pending.withLock { $0 -= size }
        }
    }

    /// Deletes the entry of `url` and `partition`, in the background.
    func remove(url: String, partition: String) {
        let name = Self.fileName(url: url, partition: partition)
        writer.async { self.discard(name) }
    }

    /// Deletes every entry of `url`, whatever its partition, in the background.
    func removeAll(url: String) {
        let prefix = Self.urlPrefix(url)
        writer.async {
            let names = self.index.withLock { index in index.files.keys.filter { $0.hasPrefix(prefix) } }
            for name in names { self.discard(name) }
        }
    }

    /// Deletes every entry, in the background.
    func removeAll() {
        writer.async {
            let names = self.index.withLock { index -> [String] in
                defer { index = Index() }
                return Array(index.files.keys)
            }
            for name in names { try? FileManager.default.removeItem(at: self.directory.appendingPathComponent(name)) }
        }
    }

    /// Returns once every write asked for so far is done.
    func flush() {
        writer.sync {}
    }

    // MARK: Files

    /// `<digest of the URL>-<digest of the partition>.entry`: every file of a URL shares a prefix.
    static func fileName(url: String, partition: String) -> String {
        urlPrefix(url) + HTTPCache.hex(SHA256.hash(data: Data(partition.utf8))).prefix(32) + suffix
    }

    private static func urlPrefix(_ url: String) -> String {
        digest(url).prefix(32) + "-"
    }

    /// The SHA-256 of `url` as lower-case hex.
    private static func digest(_ url: String) -> String {
        HTTPCache.hex(SHA256.hash(data: Data(url.utf8)))
    }

    private func write(_ entry: CachedResponse) {
        let name = Self.fileName(url: entry.url, partition: entry.partition)
        let header = Header(
            urlDigest: Self.digest(entry.url), partition: entry.partition, status: entry.status, httpVersion: entry.httpVersion, fields: entry.fields,
            requestTime: entry.requestTime, responseTime: entry.responseTime, bodyBytes: entry.body.count)
        guard let encoded = try? JSONEncoder().encode(header), encoded.count <= Self.maximumHeaderBytes else { return }
        var data = Self.magic
        var length = UInt32(encoded.count).bigEndian
        withUnsafeBytes(of: &length) { data.append(contentsOf: $0) }
        data.append(encoded)
        data.append(entry.body)
        guard data.count <= maximumBytes else { return }
        let temporary = directory.appendingPathComponent(".tmp-\(UUID().uuidString)")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            onWriteFailure("cannot write in \(directory.path): \(String(cString: strerror(errno)))")
            return
        }
        let written = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let count = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        let failure = written ? nil : String(cString: strerror(errno))
        close(descriptor)
        guard written, rename(temporary.path, directory.appendingPathComponent(name).path) == 0 else {
            let reason = failure ?? String(cString: strerror(errno))
            unlink(temporary.path)
            onWriteFailure("cannot write in \(directory.path): \(reason)")
            return
        }
        index.withLock { index in
            index.tick += 1
            index.bytes -= index.files[name]?.bytes ?? 0
            index.files[name] = FileInfo(bytes: data.count, lastUse: index.tick)
            index.bytes += data.count
        }
        trim()
    }

    /// Deletes the least recently used files until the folder is within its bound.
    private func trim() {
        let victims = index.withLock { index -> [String] in
            guard index.bytes > maximumBytes else { return [] }
            var victims: [String] = []
            for (name, info) in index.files.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                guard index.bytes > maximumBytes else { break }
                index.files[name] = nil
                index.bytes -= info.bytes
                victims.append(name)
            }
            return victims
        }
        for name in victims { unlink(directory.appendingPathComponent(name).path) }
    }

    private static func modificationTime(_ status: stat) -> Int {
        #if os(Linux)
        Int(status.st_mtim.tv_sec)
        #else
        Int(status.st_mtimespec.tv_sec)
        #endif
    }

    private func discard(_ name: String) {
        let known = index.withLock { index -> Bool in
            guard let info = index.files.removeValue(forKey: name) else { return false }
            index.bytes -= info.bytes
            return true
        }
        if known { unlink(directory.appendingPathComponent(name).path) }
    }

    private func decode(_ data: Data, url: String, partition: String) -> CachedResponse? {
        let start = Self.magic.count + 4
        guard data.count >= start, data.prefix(Self.magic.count) == Self.magic else { return nil }
        let length = data[Self.magic.count..<start].reduce(0) { ($0 << 8) | Int($1) }
        guard length <= Self.maximumHeaderBytes, data.count >= start + length,
            let header = try? JSONDecoder().decode(Header.self, from: data[start..<(start + length)]),
            header.urlDigest == Self.digest(url), header.partition == partition, header.bodyBytes == data.count - start - length,
            (100...599).contains(header.status),
            // A file edited to hold a field that could not have arrived (CR, LF, a control byte).
            header.fields.allSatisfy({ RequestCheck.isToken($0.name) && RequestCheck.isFieldValue($0.value) })
        else { return nil }
        return CachedResponse(
            url: url, partition: partition, status: header.status, httpVersion: header.httpVersion, fields: header.fields,
            body: Data(data[(start + length)...]), requestTime: header.requestTime, responseTime: header.responseTime,
            maximumFreshness: maximumFreshness)
    }
}

/// `read(2)`.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(descriptor, buffer, count)
    #else
    Darwin.read(descriptor, buffer, count)
    #endif
}

/// `write(2)`, under a name the store's own `write` does not hide.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, buffer, count)
    #else
    Darwin.write(descriptor, buffer, count)
    #endif
}
