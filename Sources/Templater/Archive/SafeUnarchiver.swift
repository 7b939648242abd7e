import Foundation
import ZIPFoundation

/// One file of an archive, inflated in memory.
struct ArchivedFile: Sendable, Hashable {
    /// The entry's path inside the archive, e.g. `templates/users.get.json`.
    var entryPath: String
    /// The entry's checked path components (no `..`, no empty or absolute parts).
    var components: [String]
    /// The inflated bytes.
    var data: Data
    /// Their CRC-32, verified against the archive's.
    var crc32: UInt32
}

/// Reads a ZIP archive's files, refusing anything hostile.
///
/// Refused (the whole archive, with the offending entry named): absolute paths, `..` components,
/// backslashes or NULs in names, symbolic links, duplicate names, encrypted entries, entries
/// ZIPFoundation cannot read, more entries than the limit, a declared or actual total above the
/// limit, a declared or actual compression ratio above the limit, an entry that inflates past its
/// declared size, a CRC mismatch. Reading and inflating is ZIPFoundation's; this type decides what
/// may come out. It writes nothing: files are handed over in memory (bounded by the total limit),
/// and the caller decides where, under which name, they go.
struct SafeUnarchiver {
    var limits: ArchiveLimits

    /// Checks the whole central directory, then inflates each file entry in order and passes it to `body`.
    ///
    /// Folder entries are checked but not passed. The central directory is checked before the
    /// first file is inflated, so a hostile name or declared size refuses the archive before
    /// `body` sees anything; a limit passed while inflating refuses it part-way.
    func forEachFile(in archiveURL: URL, _ body: (ArchivedFile) throws(TemplaterError) -> Void) throws(TemplaterError) {
        let archivePath = archiveURL.path
        let archive: Archive
        do {
            archive = try Archive(url: archiveURL, accessMode: .read)
        } catch {
            throw .archiveUnreadable(path: archivePath, reason: "not a readable ZIP archive (\(error))")
        }
        let entries = try plan(archive, archivePath: archivePath)
        var total: UInt64 = 0
        for (entry, components) in entries where entry.type == .file {
            let data = try inflate(entry, of: archive, total: &total, archivePath: archivePath)
            try body(
                ArchivedFile(
                    entryPath: components.joined(separator: "/"), components: components,
                    data: data, crc32: entry.checksum))
        }
    }

    /// Checks the central directory before anything is written; returns the entries with their path components.
    private func plan(_ archive: Archive, archivePath: String) throws(TemplaterError) -> [(Entry, [String])] {
        var planned: [(Entry, [String])] = []
        var seen = Set<String>()
        var declaredTotal: UInt64 = 0
        let directory: CentralDirectoryScan
        do {
            directory = try CentralDirectoryScan(archive: URL(fileURLWithPath: archivePath))
        } catch {
            throw .archiveUnreadable(path: archivePath, reason: "\(error)")
        }
        if directory.records.count > limits.maxEntryCount {
            throw .archiveRefused(path: archivePath, entry: "", reason: "more than \(limits.maxEntryCount) entries")
        }
        if let encrypted = directory.records.first(where: \.isEncrypted) {
            throw .archiveRefused(path: archivePath, entry: encrypted.name, reason: "entry is encrypted")
        }
        for entry in archive {
            planned.append((entry, []))
            if planned.count > limits.maxEntryCount {
                throw .archiveRefused(
                    path: archivePath, entry: "",
                    reason: "more than \(limits.maxEntryCount) entries")
            }
        }
        // ZIPFoundation's iterator stops at the first record it cannot read: never let that hide entries.
        if planned.count != directory.records.count {
            let hidden = directory.records.indices.contains(planned.count) ? directory.records[planned.count].name : ""
            throw .archiveRefused(
                path: archivePath, entry: hidden,
                reason: "entry cannot be read (\(planned.count) of \(directory.records.count) entries readable)")
        }
        // ZIPFoundation reads an entry's data until it has its declared size, even past the end
        // of the file (a read loop that never ends on a size of gigabytes): refuse such sizes.
        let archiveSize = (try? FileManager.default.attributesOfItem(atPath: archivePath)[.size] as? NSNumber)?.uint64Value ?? 0
        for index in planned.indices {
            let entry = planned[index].0
            let name = Self.decodedPath(of: entry)
            func refuse(_ reason: String) -> TemplaterError {
                .archiveRefused(path: archivePath, entry: name, reason: reason)
            }
            if entry.type == .symlink { throw refuse("entry is a symbolic link") }
            let components = try Self.safeComponents(of: name, refuse: refuse)
            let key = components.joined(separator: "/")
            if !seen.insert(key).inserted { throw refuse("duplicate entry name") }
            if entry.type == .file {
                let stored = entry.isCompressed ? entry.compressedSize : entry.uncompressedSize
                if stored > archiveSize {
                    throw refuse("entry's data (\(stored) bytes) runs past the end of the archive (\(archiveSize) bytes)")
                }
                let (sum, overflow) = declaredTotal.addingReportingOverflow(entry.uncompressedSize)
                declaredTotal = sum
                if overflow || declaredTotal > limits.maxTotalUncompressedSize {
                    throw refuse("declared total uncompressed size exceeds \(limits.maxTotalUncompressedSize) bytes")
                }
                if entry.isCompressed,
                    limits.exceedsRatio(uncompressed: entry.uncompressedSize, compressed: entry.compressedSize)
                {
                    throw refuse("declared compression ratio exceeds \(limits.maxCompressionRatio):1")
                }
            }
            planned[index].1 = components
        }
        // A file whose name is also a folder of another entry would make extraction fail half-way.
        let files = Set(planned.filter { $0.0.type == .file }.map { $0.1.joined(separator: "/") })
        for (_, components) in planned where components.count > 1 {
            for depth in 1..<components.count {
                let prefix = components[0..<depth].joined(separator: "/")
                if files.contains(prefix) {
                    throw .archiveRefused(
                        path: archivePath, entry: prefix,
                        reason: "entry is both a file and a folder")
                }
            }
        }
        return planned
    }

    /// Inflates one entry in memory, enforcing the limits on the bytes really produced.
    private func inflate(
        _ entry: Entry, of archive: Archive, total: inout UInt64,
        archivePath: String
    ) throws(TemplaterError) -> Data {
        let name = Self.decodedPath(of: entry)
        var data = Data()
        var produced: UInt64 = 0
        var runningTotal = total
        let limits = self.limits
        let declared = entry.uncompressedSize
        let compressed = entry.compressedSize
        let isCompressed = entry.isCompressed
        data.reserveCapacity(Int(min(declared, 1 << 20)))
        let checksum: CRC32
        do {
            checksum = try archive.extract(entry, skipCRC32: false) { chunk in
                produced += UInt64(chunk.count)
                runningTotal += UInt64(chunk.count)
                if produced > declared {
                    throw TemplaterError.archiveRefused(
                        path: archivePath, entry: name,
                        reason: "entry inflates beyond its declared size of \(declared) bytes")
                }
                if runningTotal > limits.maxTotalUncompressedSize {
                    throw TemplaterError.archiveRefused(
                        path: archivePath, entry: name,
                        reason: "total uncompressed size exceeds \(limits.maxTotalUncompressedSize) bytes")
                }
                if isCompressed, limits.exceedsRatio(uncompressed: produced, compressed: compressed) {
                    throw TemplaterError.archiveRefused(
                        path: archivePath, entry: name,
                        reason: "compression ratio exceeds \(limits.maxCompressionRatio):1")
                }
                data.append(chunk)
            }
        } catch let error as TemplaterError {
            throw error
        } catch {
            throw .archiveRefused(path: archivePath, entry: name, reason: "cannot inflate: \(error)")
        }
        if produced != declared {
            throw .archiveRefused(
                path: archivePath, entry: name,
                reason: "entry holds \(produced) bytes, its header declares \(declared)")
        }
        if checksum != entry.checksum {
            throw .archiveRefused(path: archivePath, entry: name, reason: "CRC-32 mismatch")
        }
        total = runningTotal
        return data
    }

    /// The path components of an entry name, or an error when the name could leave the target folder.
    static func safeComponents(
        of name: String,
        refuse: (String) -> TemplaterError
    ) throws(TemplaterError) -> [String] {
        if name.isEmpty { throw refuse("empty entry name") }
        if name.hasPrefix("/") { throw refuse("absolute path") }
        if name.contains("\\") { throw refuse("backslash in entry name") }
        if name.unicodeScalars.contains(where: { $0.value == 0 }) { throw refuse("NUL in entry name") }
        if let first = name.unicodeScalars.first, name.unicodeScalars.dropFirst().first == ":",
            first.properties.isAlphabetic
        {
            throw refuse("drive-letter path")
        }
        var trimmed = Substring(name)
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        let components = trimmed.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for component in components {
            if component == ".." { throw refuse("'..' in entry path") }
            if component.isEmpty || component == "." { throw refuse("empty or '.' component in entry path") }
            if component.utf8.count > 255 { throw refuse("path component longer than 255 bytes") }
        }
        return components
    }

    /// The entry's name: UTF-8 when its bytes are valid UTF-8 (whether or not the archive sets the
    /// UTF-8 flag: Info-ZIP writes UTF-8 names without it), else code page 437.
    static func decodedPath(of entry: Entry) -> String {
        let utf8 = entry.path(using: .utf8)
        return utf8.isEmpty ? entry.path : utf8
    }
}
