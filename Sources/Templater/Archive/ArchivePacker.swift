import Foundation
import ZIPFoundation

/// Packs the templates of a folder into a ZIP archive, deterministically.
///
/// Only `*.json` files at the top of the folder are packed, sorted by name, deflated, each with
/// the same fixed date and permissions, so packing the same files again gives an archive with
/// the same entries and contents (and, with the same zlib, the same bytes).
public struct ArchivePacker: Sendable {
    /// The modification date written on every entry (2000-01-01 00:00:00 UTC).
    public static let fixedDate = Date(timeIntervalSince1970: 946_684_800)

    /// Makes a packer.
    public init() {}

    /// The template files `pack` would put in an archive, sorted by file name.
    public func templateFiles(in folder: URL) throws(TemplaterError) -> [URL] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw .packFailed(path: folder.path, reason: error.templaterReason)
        }
        return names.filter { TemplateName(fileName: $0) != nil }
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            .map { folder.appendingPathComponent($0) }
    }

    /// Writes the templates of `folder` to a ZIP archive at `archiveURL`, replacing it atomically.
    ///
    /// The archive is written beside its destination and renamed over it, so a failure leaves
    /// any previous archive as it was. Contents are not checked here: run `Templater.check` first.
    /// - Returns: The entry names written, in order.
    /// - Throws: `TemplaterError.packFailed`.
    @discardableResult
    public func pack(folder: URL, to archiveURL: URL) throws(TemplaterError) -> [String] {
        let files = try templateFiles(in: folder)
        let temporary = FileSystem.temporarySibling(of: archiveURL, purpose: "pack")
        defer { try? FileManager.default.removeItem(at: temporary) }
        do {
            let archive = try Archive(url: temporary, accessMode: .create)
            for file in files {
                let data = try Data(contentsOf: file)
                try archive.addEntry(
                    with: file.lastPathComponent, type: .file, uncompressedSize: Int64(data.count),
                    modificationDate: Self.fixedDate, permissions: 0o644, compressionMethod: .deflate
                ) { position, size in
                    let start = Int(position)
                    return data.subdata(in: start ..< min(start + size, data.count))
                }
            }
        } catch {
            throw .packFailed(path: folder.path, reason: error.templaterReason)
        }
        do {
            try FileSystem.rename(temporary, to: archiveURL)
        } catch {
            throw .packFailed(path: archiveURL.path, reason: error.templaterReason)
        }
        return files.map(\.lastPathComponent)
    }
}
