import Foundation

/// The bookkeeping file an unpack leaves in the template folder: which archive it came from, and
/// which files it wrote with what contents, so a later unpack can tell its own files (replaceable)
/// from files the service wrote at run time (kept).
struct ArchiveMarker: Codable, Equatable {
    /// The marker's file name; it starts with a dot, so no template can have it.
    static let fileName = ".templater-archive.json"

    /// SHA-256 of the archive that was unpacked.
    var archiveSHA256: String
    /// For each file the archive installed: its CRC-32 and size, as `crc32hex:size`.
    var files: [String: String]

    /// The fingerprint recorded for a file's contents.
    static func fingerprint(of data: Data) -> String {
        fingerprint(crc32: data.crc32Checksum, count: data.count)
    }

    /// The fingerprint of contents whose CRC-32 is already known.
    static func fingerprint(crc32: UInt32, count: Int) -> String {
        String(crc32, radix: 16) + ":" + String(count)
    }

    /// Reads the marker in `folder`, or `nil` when there is none, it is unreadable or a symbolic link.
    static func read(in folder: URL) -> ArchiveMarker? {
        guard let data = try? FileSystem.readFile(folder, segments: [fileName]) else { return nil }
        return try? JSONDecoder().decode(ArchiveMarker.self, from: data)
    }

    /// Writes the marker into `folder`, which must not hold one yet (no `fsync`, like the templates).
    func write(in folder: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try FileSystem.createFile(encoder.encode(self), at: folder.appendingPathComponent(Self.fileName))
    }
}
