import Foundation

/// Where a store's templates went when its folder was moved, kept on disk so that the next
/// process that makes a store on the same folder finds them.
///
/// The record is a small file beside the configured folder, `.<folder name>.location`, holding
/// the new folder's absolute path. `setNewPathToTemplateDirectory(_:)` writes it (by rename, so
/// a reader never sees half of it) and removes it when the templates move back home. A store
/// made on the configured folder follows a record that names an existing folder, and ignores
/// one that does not (the templates were removed or the record is damaged): it then uses the
/// configured folder as if nothing had moved.
struct TemplateFolderRecord {
    /// The folder the store was made on.
    let home: URL

    /// The record file: a hidden sibling of `home`.
    var file: URL {
        home.deletingLastPathComponent().appendingPathComponent(".\(home.lastPathComponent).location")
    }

    /// The folder the record names, if it names an existing folder other than `home`.
    func movedFolder() -> URL? {
        guard let data = try? FileSystem.readRegularFile(atPath: file.path, limit: 4_095) else { return nil }
        let path = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard path.hasPrefix("/") else { return nil }
        let folder = URL(fileURLWithPath: path).standardizedFileURL
        guard folder.path != home.path, FileSystem.isDirectory(folder) else { return nil }
        return folder
    }

    /// Records that the templates now live in `folder`; moving them back to `home` removes the
    /// record.
    func record(_ folder: URL) throws {
        if folder.standardizedFileURL.path == home.path {
            try FileSystem.removeIfPresent(file)
            return
        }
        let staging = FileSystem.temporarySibling(of: file, purpose: "writing")
        do {
            try FileSystem.createFile(Data((folder.standardizedFileURL.path + "\n").utf8), at: staging)
            try FileSystem.rename(staging, to: file)
        } catch {
            try? FileSystem.removeIfPresent(staging)
            throw error
        }
    }
}
