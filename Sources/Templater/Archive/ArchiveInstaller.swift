import Foundation

/// Unpacks a template archive beside the template folder and swaps it in.
///
/// `prepare` does all the work where nobody looks (hidden siblings of the target folder, on its
/// file system); `commit` is two renames; `finish` deletes the old folder. A failure before
/// `commit` leaves the target folder untouched.
struct ArchiveInstaller {
    /// A fully built replacement folder, ready to swap in.
    struct Prepared {
        var target: URL
        var replacement: URL
        var report: UnarchiveReport
    }

    var limits: ArchiveLimits

    /// Builds the replacement folder, or returns `nil` with the report when the target already
    /// holds this archive (its marker records the same SHA-256).
    func prepare(archive: URL, into target: URL) throws(TemplaterError) -> (Prepared?, UnarchiveReport) {
        let digest: String
        do {
            digest = try SHA256Digest.hex(ofFileAt: archive)
        } catch {
            throw .archiveUnreadable(path: archive.path, reason: error.templaterReason)
        }
        let oldMarker = ArchiveMarker.read(in: target)
        if let oldMarker, oldMarker.archiveSHA256 == digest, FileSystem.isDirectory(target) {
            return (nil, UnarchiveReport(outcome: .alreadyUpToDate, archiveSHA256: digest))
        }
        do {
            try FileManager.default.createDirectory(
                at: target.deletingLastPathComponent(),
                withIntermediateDirectories: true)
        } catch {
            throw .unpackFailed(path: archive.path, reason: "cannot create \(target.deletingLastPathComponent().path): \(error.templaterReason)")
        }
        let replacement = FileSystem.temporarySibling(of: target, purpose: "new")
        do {
            var report = UnarchiveReport(outcome: .unpacked, archiveSHA256: digest)
            try makeFolder(replacement, archive: archive)
            var marker = ArchiveMarker(archiveSHA256: digest, files: [:])
            var rejectedFiles = Set<String>()
            try SafeUnarchiver(limits: limits).forEachFile(in: archive) { file throws(TemplaterError) in
                // The entry's path is the template's path in the folder: `issues/list.json` is
                // the template `issues/list`. (The unarchiver refused `..`, absolute paths and
                // duplicates already.)
                if let skip = Self.skipReason(file.components) {
                    report.skipped.append(.init(path: file.entryPath, reason: skip))
                    return
                }
                let relativePath = file.components.joined(separator: "/")
                switch Result(catching: { () throws(TemplaterError) in try install(file, at: relativePath, into: replacement) }) {
                case .success:
                    marker.files[relativePath] = ArchiveMarker.fingerprint(crc32: file.crc32, count: file.data.count)
                    report.installed.append(String(relativePath.dropLast(5)))
                case let .failure(error):
                    rejectedFiles.insert(relativePath)
                    report.rejected.append(.init(path: file.entryPath, reason: error.description))
                }
            }
            do {
                try carryOver(
                    from: target, into: replacement, oldMarker: oldMarker,
                    newMarker: &marker, rejectedFiles: rejectedFiles, report: &report)
                try marker.write(in: replacement)
            } catch {
                throw TemplaterError.unpackFailed(path: archive.path, reason: error.templaterReason)
            }
            report.installed.sort()
            return (Prepared(target: target, replacement: replacement, report: report), report)
        } catch {
            try? FileSystem.removeIfPresent(replacement)
            throw (error as? TemplaterError) ?? .unpackFailed(path: archive.path, reason: error.templaterReason)
        }
    }

    /// Swaps the replacement in with two renames; returns the old folder for `finish`, if any.
    func commit(_ prepared: Prepared) throws(TemplaterError) -> URL? {
        let target = prepared.target
        var old: URL?
        do {
            if FileSystem.exists(target) {
                let aside = FileSystem.temporarySibling(of: target, purpose: "old")
                try FileSystem.rename(target, to: aside)
                old = aside
            }
            try FileSystem.rename(prepared.replacement, to: target)
            return old
        } catch {
            if let old { try? FileSystem.rename(old, to: target) }
            try? FileSystem.removeIfPresent(prepared.replacement)
            throw .unpackFailed(path: target.path, reason: "cannot swap the new folder in: \(error.description)")
        }
    }

    /// Deletes the folder `commit` set aside.
    func finish(old: URL?) {
        if let old { try? FileSystem.removeIfPresent(old) }
    }

    /// Why an entry is not a template to install, or `nil` when it is one.
    private static func skipReason(_ components: [String]) -> String? {
        if components.contains(where: { $0.hasPrefix(".") }) { return "hidden file or folder, not a template" }
        guard let fileName = components.last, fileName.hasSuffix(".json") else { return "not a template (.json) file" }
        return nil
    }

    /// Checks one archived file and writes it into the replacement folder, at `relativePath`
    /// (folders created as needed: the replacement is a fresh folder holding no links).
    private func install(_ file: ArchivedFile, at relativePath: String, into folder: URL) throws(TemplaterError) {
        let name = String(relativePath.dropLast(5))
        if let reason = TemplateName.problem(with: name) {
            throw .invalidName(name: name, reason: reason)
        }
        _ = try TemplateDecoding.decode(file.data, name: name, path: file.entryPath)
        let destination = folder.appendingPathComponent(relativePath)
        do {
            try FileManager.default.createDirectory(
                at: destination.deletingLastPathComponent(),
                withIntermediateDirectories: true)
            try FileSystem.createFile(file.data, at: destination)
        } catch {
            throw .writeFailed(name: name, path: folder.path, reason: error.templaterReason)
        }
    }

    /// Copies into the replacement what the old folder holds that the new archive does not replace:
    /// files the service wrote (or changed) itself, and old files whose new version was rejected,
    /// in subfolders too. Unchanged files of the previous archive that the new one no longer has
    /// are dropped, as are folders left empty. Symbolic links are never followed nor carried over
    /// (reported as skipped), and neither is a file in the way of a folder of the archive.
    private func carryOver(
        from target: URL, into replacement: URL, oldMarker: ArchiveMarker?,
        newMarker: inout ArchiveMarker, rejectedFiles: Set<String>,
        report: inout UnarchiveReport
    ) throws {
        guard FileSystem.isDirectory(target) else { return }
        for item in try FolderWalk.items(in: target, includeHidden: false) {
            let path = item.relativePath
            switch item.kind {
            case .folder:
                continue
            case .symbolicLink, .other:
                report.skipped.append(.init(path: path, reason: "not a regular file in the template folder, not carried over"))
                continue
            case .file:
                break
            }
            if newMarker.files[path] != nil { continue }
            let source = target.appendingPathComponent(path)
            if let recorded = oldMarker?.files[path], !rejectedFiles.contains(path),
                let data = try? Data(contentsOf: source), ArchiveMarker.fingerprint(of: data) == recorded
            {
                continue
            }
            let destination = replacement.appendingPathComponent(path)
            if Self.isBlocked(destination, below: replacement) {
                report.skipped.append(.init(path: path, reason: "in the way of an entry of the archive, not carried over"))
                continue
            }
            try FileManager.default.createDirectory(
                at: destination.deletingLastPathComponent(),
                withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: source, to: destination)
            if rejectedFiles.contains(path), let recorded = oldMarker?.files[path] {
                newMarker.files[path] = recorded
            }
            report.kept.append(path)
        }
        report.kept.sort()
    }

    /// Whether something in `root` (built from the archive) stops a file being copied to
    /// `destination`: something already there, or a file where one of its folders should be.
    private static func isBlocked(_ destination: URL, below root: URL) -> Bool {
        if FileSystem.exists(destination) { return true }
        var folder = destination.deletingLastPathComponent()
        while folder.path.count > root.path.count {
            if FileSystem.exists(folder) { return !FileSystem.isDirectory(folder) }
            folder = folder.deletingLastPathComponent()
        }
        return false
    }

    private func makeFolder(_ url: URL, archive: URL) throws(TemplaterError) {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        } catch {
            throw .unpackFailed(path: archive.path, reason: "cannot create \(url.path): \(error.templaterReason)")
        }
    }
}
