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
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(),
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
                let fileName = file.components[file.components.count - 1]
                guard fileName.hasSuffix(".json"), !fileName.hasPrefix(".") else {
                    report.skipped.append(.init(path: file.entryPath, reason: "not a template (.json) file"))
                    return
                }
                if marker.files[fileName] != nil || rejectedFiles.contains(fileName) {
                    throw .archiveRefused(path: archive.path, entry: file.entryPath,
                                          reason: "another entry also installs as \(fileName)")
                }
                switch Result(catching: { () throws(TemplaterError) in try install(file, as: fileName, into: replacement) }) {
                case .success:
                    marker.files[fileName] = ArchiveMarker.fingerprint(crc32: file.crc32, count: file.data.count)
                    report.installed.append(String(fileName.dropLast(5)))
                case let .failure(error):
                    rejectedFiles.insert(fileName)
                    report.rejected.append(.init(path: file.entryPath, reason: error.description))
                }
            }
            do {
                report.kept = try carryOver(from: target, into: replacement, oldMarker: oldMarker,
                                            newMarker: &marker, rejectedFiles: rejectedFiles)
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

    /// Checks one archived file and writes it into the replacement folder.
    private func install(_ file: ArchivedFile, as fileName: String, into folder: URL) throws(TemplaterError) {
        let name = String(fileName.dropLast(5))
        if let reason = TemplateName.problem(with: name) {
            throw .invalidName(name: name, reason: reason)
        }
        _ = try TemplateDecoding.decode(file.data, name: name, path: file.entryPath)
        do {
            try FileSystem.createFile(file.data, at: folder.appendingPathComponent(fileName))
        } catch {
            throw .writeFailed(name: name, path: folder.path, reason: error.description)
        }
    }

    /// Copies into the replacement what the old folder holds that the new archive does not replace:
    /// files the service wrote (or changed) itself, and old files whose new version was rejected.
    /// Unchanged files of the previous archive that the new one no longer has are dropped.
    private func carryOver(from target: URL, into replacement: URL, oldMarker: ArchiveMarker?,
                           newMarker: inout ArchiveMarker, rejectedFiles: Set<String>) throws -> [String] {
        guard FileSystem.isDirectory(target) else { return [] }
        var kept: [String] = []
        for fileName in try FileManager.default.contentsOfDirectory(atPath: target.path).sorted() {
            if fileName == ArchiveMarker.fileName || newMarker.files[fileName] != nil { continue }
            if fileName.hasPrefix(".") { continue }
            let source = target.appendingPathComponent(fileName)
            if let recorded = oldMarker?.files[fileName], !rejectedFiles.contains(fileName),
               let data = try? Data(contentsOf: source), ArchiveMarker.fingerprint(of: data) == recorded {
                continue
            }
            try FileManager.default.copyItem(at: source, to: replacement.appendingPathComponent(fileName))
            if rejectedFiles.contains(fileName), let recorded = oldMarker?.files[fileName] {
                newMarker.files[fileName] = recorded
            }
            kept.append(fileName)
        }
        return kept
    }

    private func makeFolder(_ url: URL, archive: URL) throws(TemplaterError) {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        } catch {
            throw .unpackFailed(path: archive.path, reason: "cannot create \(url.path): \(error.templaterReason)")
        }
    }
}
