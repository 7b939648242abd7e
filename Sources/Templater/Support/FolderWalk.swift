import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything under a folder, subfolders included, without following symbolic links.
///
/// A link (to a file or to a folder) is reported as a link and never entered, so a walk never
/// leaves the folder it started in. Used to list, check, pack, carry over and verify templates.
enum FolderWalk {
    /// What an item is, as `lstat(2)` sees it.
    enum Kind: Equatable {
        case file, folder, symbolicLink, other
    }

    /// One item, by its path relative to the walked folder (`/`-separated).
    struct Item: Equatable {
        var relativePath: String
        var kind: Kind
    }

    /// The items under `folder`, depth first, each folder before its contents, sorted by name
    /// within a folder.
    ///
    /// - Parameter includeHidden: Whether to include (and enter) items whose name starts with a
    ///   dot: Templater's bookkeeping files and the hidden siblings it writes through.
    /// - Throws: When a folder cannot be listed.
    static func items(in folder: URL, includeHidden: Bool) throws -> [Item] {
        var items: [Item] = []
        try walk(folder, prefix: "", includeHidden: includeHidden, into: &items)
        return items
    }

    private static func walk(_ folder: URL, prefix: String, includeHidden: Bool, into items: inout [Item]) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            if !includeHidden, name.hasPrefix(".") { continue }
            let url = folder.appendingPathComponent(name)
            let relative = prefix + name
            let kind = kind(of: url)
            items.append(Item(relativePath: relative, kind: kind))
            if kind == .folder {
                try walk(url, prefix: relative + "/", includeHidden: includeHidden, into: &items)
            }
        }
    }

    /// What is at `url`, not following a final link.
    static func kind(of url: URL) -> Kind {
        var status = stat()
        guard lstat(url.path, &status) == 0 else { return .other }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .folder
        case S_IFLNK: return .symbolicLink
        default: return .other
        }
    }
}
