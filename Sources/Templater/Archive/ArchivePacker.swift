import Foundation
import ZIPFoundation

/// Packs the templates of a folder into a ZIP archive, deterministically.
///
/// Every `*.json` file whose path in the folder is a valid template name is packed, subfolders
/// included (`issues/list-for-repo.json` is the entry `issues/list-for-repo.json`), sorted by
/// path, deflated, each with the same fixed date and permissions, so packing the same files
/// again gives an archive with the same entries and contents (and, with the same zlib, the same
/// bytes). Hidden files and folders are left out; a symbolic link in the folder refuses the pack
/// (Templater never follows links inside a template folder).
public struct ArchivePacker: Sendable {
    /// The modification date written on every entry (2000-01-01 00:00:00 UTC).
    public static let fixedDate = Date(timeIntervalSince1970: 946_684_800)

    /// Makes a packer.
    public init() {}

    /// The template files `pack` would put in an archive, sorted by their path in the folder.
    ///
    /// - Throws: `TemplaterError.packFailed` when the folder cannot be listed or holds a symbolic link.
    public func templateFiles(in folder: URL) throws(TemplaterError) -> [URL] {
        try templatePaths(in: folder).map { folder.appendingPathComponent($0) }
    }

    /// The paths inside `folder` of the template files, sorted by their UTF-8 bytes.
    func templatePaths(in folder: URL) throws(TemplaterError) -> [String] {
        let items: [FolderWalk.Item]
        do {
            items = try FolderWalk.items(in: folder, includeHidden: false)
        } catch {
            throw .packFailed(path: folder.path, reason: error.templaterReason)
        }
        if let link = items.first(where: { $0.kind == .symbolicLink }) {
            throw .packFailed(path: folder.path, reason: FileSystem.InsideError.symbolicLink(link.relativePath).description)
        }
        return items.filter { $0.kind == .file && TemplateName(fileName: $0.relativePath) != nil }
            .map(\.relativePath)
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    /// Writes the templates of `folder` to a ZIP archive at `archiveURL`, replacing it atomically.
    ///
    /// The archive is written beside its destination and renamed over it, so a failure leaves
    /// any previous archive as it was. Contents are not checked here: run `Templater.check` first.
    /// - Returns: The entry names written, in order.
    /// - Throws: `TemplaterError.packFailed`.
    @discardableResult
    public func pack(folder: URL, to archiveURL: URL) throws(TemplaterError) -> [String] {
        let paths = try templatePaths(in: folder)
        let temporary = FileSystem.temporarySibling(of: archiveURL, purpose: "pack")
        defer { try? FileManager.default.removeItem(at: temporary) }
        do {
            let archive = try Archive(url: temporary, accessMode: .create)
            for path in paths {
                let data = try Data(contentsOf: folder.appendingPathComponent(path))
                try archive.addEntry(
                    with: path, type: .file, uncompressedSize: Int64(data.count),
                    modificationDate: Self.fixedDate, permissions: 0o644, compressionMethod: .deflate
                ) { position, size in
                    let start = Int(position)
                    return data.subdata(in: start..<min(start + size, data.count))
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
        return paths
    }
}
