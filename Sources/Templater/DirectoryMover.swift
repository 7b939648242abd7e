import Foundation

/// Moves a folder and its files safely, in steps a lock holder can interleave with readers.
///
/// On one file system the move is a single `rename(2)`. Across file systems the folder is copied
/// to a hidden sibling of the destination, every file is compared byte for byte with its source,
/// the copy is renamed into place, and only then is the source deleted. A failure at any step
/// leaves the source folder as it was.
struct DirectoryMover {
    /// What `prepare` found, for `commit` and `finish`.
    enum Plan {
        /// No source folder: nothing to carry over.
        case nothingToMove
        /// Source and destination are the same folder.
        case sameFolder
        /// One file system: `commit` renames the source.
        case rename(source: URL, destination: URL)
        /// Across file systems: `staging` holds a verified copy that `commit` renames into place.
        case copied(source: URL, staging: URL, destination: URL)
    }

    /// Takes the copy path even on one file system (tests exercise it without a second file system).
    var forceCopy = false

    /// Checks the destination and, across file systems, makes and verifies the copy.
    ///
    /// Readers may keep reading the source meanwhile; nothing visible changes yet.
    func prepare(from source: URL, to destination: URL) throws(TemplaterError) -> Plan {
        let source = source.standardizedFileURL
        let destination = destination.standardizedFileURL
        func failure(_ reason: String) -> TemplaterError {
            .moveFailed(from: source.path, to: destination.path, reason: reason)
        }
        if source.path == destination.path { return .sameFolder }
        if destination.path.hasPrefix(source.path + "/") { throw failure("the destination is inside the source") }
        if FileSystem.exists(destination) {
            guard FileSystem.isDirectory(destination) else { throw failure("the destination exists and is not a folder") }
            let contents = (try? FileManager.default.contentsOfDirectory(atPath: destination.path)) ?? ["?"]
            guard contents.isEmpty else { throw failure("the destination folder is not empty") }
        }
        do {
            try FileManager.default.createDirectory(
                at: destination.deletingLastPathComponent(),
                withIntermediateDirectories: true)
        } catch {
            throw failure("cannot create the destination's parent: \(error.templaterReason)")
        }
        guard FileSystem.exists(source) else { return .nothingToMove }
        guard FileSystem.isDirectory(source) else { throw failure("the source is not a folder") }
        if !forceCopy, Self.device(of: source) == Self.device(of: destination.deletingLastPathComponent()) {
            return .rename(source: source, destination: destination)
        }
        let staging = FileSystem.temporarySibling(of: destination, purpose: "moving")
        do {
            try FileManager.default.copyItem(at: source, to: staging)
            try Self.verifyCopy(of: source, at: staging)
        } catch {
            try? FileSystem.removeIfPresent(staging)
            throw failure("copy failed: \(error.templaterReason)")
        }
        return .copied(source: source, staging: staging, destination: destination)
    }

    /// Makes the move visible: one rename. Quick enough to run under the store's lock.
    func commit(_ plan: Plan) throws(TemplaterError) {
        let (from, destination): (URL, URL)
        switch plan {
        case .nothingToMove, .sameFolder: return
        case let .rename(source, target): (from, destination) = (source, target)
        case let .copied(_, staging, target): (from, destination) = (staging, target)
        }
        // rename(2) atomically replaces an empty destination folder, and fails (ENOTEMPTY) if
        // something was put into it since `prepare` looked: nothing there is ever deleted.
        do {
            try FileSystem.rename(from, to: destination)
        } catch {
            if case let .copied(_, staging, _) = plan { try? FileSystem.removeIfPresent(staging) }
            throw .moveFailed(from: from.path, to: destination.path, reason: error.description)
        }
    }

    /// Deletes the source after a committed copy; a failure here leaves a stale copy, never lost data.
    func finish(_ plan: Plan) throws(TemplaterError) {
        guard case let .copied(source, _, destination) = plan else { return }
        do {
            try FileSystem.removeIfPresent(source)
        } catch {
            throw .moveFailed(
                from: source.path, to: destination.path,
                reason: "moved, but the old folder could not be deleted: \(error.templaterReason)")
        }
    }

    private static func device(of url: URL) -> UInt64? {
        var status = stat()
        guard stat(url.path, &status) == 0 else { return nil }
        return UInt64(status.st_dev)
    }

    /// Throws unless everything under `source`, subfolders and hidden files included, has an
    /// identical twin under `copy`: files byte for byte, folders as folders, and symbolic links
    /// as links with the same destination (a link is compared, never followed).
    static func verifyCopy(of source: URL, at copy: URL) throws {
        struct Mismatch: Error, CustomStringConvertible {
            var path: String
            var description: String { "the copy of \(path) differs from its source" }
        }
        for item in try FolderWalk.items(in: source, includeHidden: true) {
            let original = source.appendingPathComponent(item.relativePath)
            let twin = copy.appendingPathComponent(item.relativePath)
            guard FolderWalk.kind(of: twin) == item.kind else { throw Mismatch(path: original.path) }
            let same: Bool
            switch item.kind {
            case .file:
                same = (try? Data(contentsOf: original)) == (try? Data(contentsOf: twin))
            case .symbolicLink:
                let manager = FileManager.default
                same =
                    (try? manager.destinationOfSymbolicLink(atPath: original.path))
                    == (try? manager.destinationOfSymbolicLink(atPath: twin.path))
            case .folder, .other:
                same = true
            }
            if !same { throw Mismatch(path: original.path) }
        }
    }
}
