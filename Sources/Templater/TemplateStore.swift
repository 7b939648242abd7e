import Foundation
import NIOConcurrencyHelpers
import Validator

/// A template folder with an in-memory cache: the object behind the static `Templater` front.
///
/// Thread-safe: any number of threads may read while one writes, moves the folder or unpacks
/// an archive. Reads of cached templates only take a short lock; a cache miss reads the disk
/// outside any lock. Mutations (write, remove, move, unpack) are serialized among themselves
/// and become visible to readers atomically: each publishes its change on disk (a rename or an
/// unlink) under the short lock together with the cache update, so what a reader finds on disk
/// is never newer than what the cache answers.
///
/// Make independent stores on temporary folders in tests; services use `Templater.shared`.
///
/// ```swift
/// let store = TemplateStore(directory: URL(fileURLWithPath: "/var/lib/myservice/templates"))
/// try store.unarchiveDefaultTemplates(from: bundledArchiveURL)
/// if let template = try store.template(for: "users.get") { … }
/// ```
public final class TemplateStore: Sendable {
    struct State {
        var directory: URL
        var bundleDirectory: URL?
        var cache: [TemplateName: JSONValue] = [:]
        /// Templates compiled for validation, each with the generation it was compiled in: an
        /// entry of an older generation is stale and compiled again on the next read.
        var compiled: [TemplateName: CompiledEntry] = [:]
        /// Bumped by every mutation; a cache miss only fills the cache if it did not change meanwhile.
        var generation: UInt64 = 0

        var readDirectory: URL { bundleDirectory ?? directory }
    }

    /// A compiled template and the store generation its JSON belonged to.
    struct CompiledEntry {
        var generation: UInt64
        var template: Template
    }

    /// The cache, the folder's location and the generation counter.
    private let state: NIOLockedValueBox<State>
    /// Serializes mutations of the folder (held across their disk work; readers never take it).
    private let mutation = NIOLockedValueBox<Void>(())
    /// How folders are moved (tests force the cross-file-system path).
    let mover: DirectoryMover
    /// The folder the store was made on, and the record of where its templates moved.
    private let home: TemplateFolderRecord

    /// The limits archives must stay within.
    public let limits: ArchiveLimits

    /// Makes a store on `directory`; the folder is created when first written to. If an earlier
    /// process moved this folder with `setNewPathToTemplateDirectory(_:)`, the store uses the
    /// folder the templates were moved to (see `TemplateFolderRecord`).
    ///
    /// - Parameters:
    ///   - directory: The template folder.
    ///   - limits: The limits `unarchiveDefaultTemplates` enforces.
    public convenience init(directory: URL, limits: ArchiveLimits = .default) {
        self.init(directory: directory, limits: limits, mover: DirectoryMover())
    }

    init(directory: URL, limits: ArchiveLimits, mover: DirectoryMover) {
        let home = TemplateFolderRecord(home: directory.standardizedFileURL)
        state = NIOLockedValueBox(State(directory: home.movedFolder() ?? home.home))
        self.home = home
        self.limits = limits
        self.mover = mover
    }

    /// The template folder.
    public var directory: URL {
        state.withLock { $0.directory }
    }

    /// This store among every store the process made, for keys that name a template version.
    package let identity = UUID().uuidString

    /// Counts the changes of the store's templates: what was checked against a template of
    /// one generation must be checked again in a later one.
    package var generation: UInt64 {
        state.withLock { $0.generation }
    }

    /// A folder of shipped templates (e.g. a resource bundle's) to read from instead of `directory`.
    ///
    /// `nil` (the default) reads `directory`. Setting it empties the cache. Writes, removals and
    /// unpacking still act on `directory`; while this is set, reads do not see them.
    public var loadTemplateFromBundle: URL? {
        get { state.withLock { $0.bundleDirectory } }
        set {
            state.withLock { state in
                state.bundleDirectory = newValue?.standardizedFileURL
                state.cache.removeAll()
                state.generation &+= 1
            }
        }
    }

    // MARK: Reading

    /// The template for `name`: from memory, else from disk (then kept in memory).
    ///
    /// - Returns: The template, or `nil` when there is no file for it.
    /// - Throws: `TemplaterError.invalidName`, `.unreadable`, `.invalidJSON` or `.invalidRules`.
    public func template(for name: String) throws(TemplaterError) -> JSONValue? {
        try template(for: TemplateName(name))
    }

    /// The template for an API method whose raw value is its name (e.g. an enum `MyAPI: String`).
    public func template<Method: RawRepresentable>(for method: Method) throws(TemplaterError) -> JSONValue?
    where Method.RawValue == String {
        try template(for: TemplateName(method.rawValue))
    }

    /// The template for `name`: from memory, else from disk (then kept in memory).
    public func template(for name: TemplateName) throws(TemplaterError) -> JSONValue? {
        try versionedTemplate(for: name)?.json
    }

    /// The template for `name` compiled for validation, compiled once per template version.
    ///
    /// Every call of one version (between two mutations of the store: a write, a removal, a
    /// move, an unpack, `purgeCache`) shares one compiled `Template`; the first call after a
    /// mutation compiles again. Compiling happens outside the store's lock, so concurrent first
    /// calls may each compile; one result is kept.
    /// - Returns: The compiled template, or `nil` when there is no file for it.
    /// - Throws: What `template(for:)` throws, and `TemplaterError.invalidRules` when the template
    ///   does not compile.
    public func compiledTemplate(for name: String) throws(TemplaterError) -> Template? {
        try compiledTemplate(for: TemplateName(name))
    }

    /// The template for `name` compiled for validation; see `compiledTemplate(for:)` with a `String`.
    public func compiledTemplate(for name: TemplateName) throws(TemplaterError) -> Template? {
        let hit = state.withLock { state -> Template? in
            guard let entry = state.compiled[name], entry.generation == state.generation else { return nil }
            return entry.template
        }
        if let hit { return hit }
        guard let (json, generation) = try versionedTemplate(for: name) else { return nil }
        let template: Template
        do {
            template = try Template(json)
        } catch {
            let path = directory.appendingPathComponent(name.fileName).path
            throw .invalidRules(name: name.rawValue, path: path, reason: error.errors.map(\.description).joined(separator: "; "))
        }
        return state.withLock { state -> Template in
            // Kept only if no mutation came between the read and now: a later version must not
            // be answered with this one.
            guard state.generation == generation else { return template }
            if let entry = state.compiled[name], entry.generation == generation { return entry.template }
            state.compiled[name] = CompiledEntry(generation: generation, template: template)
            return template
        }
    }

    /// The template for `name` with the generation it is current in.
    private func versionedTemplate(for name: TemplateName) throws(TemplaterError) -> (json: JSONValue, generation: UInt64)? {
        // A concurrent move or unpack can pull the folder away between the snapshot and the read;
        // the generation tells, and the read is retried against the new folder. Each retry
        // follows a mutation that completed; a reader that loses 64 such races in a row says so
        // rather than answer "no template" for one that exists.
        for _ in 0..<64 {
            let (cached, generation, folder) = state.withLock { ($0.cache[name], $0.generation, $0.readDirectory) }
            if let cached { return (cached, generation) }
            let url = folder.appendingPathComponent(name.fileName)
            let read: Data?
            do {
                // Folder by folder, never following a link below the template folder.
                read = try FileSystem.readFile(folder, segments: name.folderSegments + [name.leafFileName])
            } catch {
                if state.withLock({ $0.generation }) != generation { continue }
                throw .unreadable(name: name.rawValue, path: url.path, reason: error.description)
            }
            guard let data = read else {
                // No file at the moment of the read: no template then, unless the folder moved.
                if state.withLock({ $0.generation }) != generation { continue }
                return nil
            }
            let template = try TemplateDecoding.decode(data, name: name.rawValue, path: url.path)
            // Within one generation the file does not change (every mutation publishes under the
            // lock and bumps the generation), unless someone edits it by hand: then the first
            // template cached wins and later readers return it, so no reader goes back in time.
            // After a mutation, what was read was current when it was read: returned, not cached.
            return state.withLock { state -> (json: JSONValue, generation: UInt64) in
                guard state.generation == generation else { return (template, generation) }
                if let cached = state.cache[name] { return (cached, generation) }
                state.cache[name] = template
                return (template, generation)
            }
        }
        throw .unreadable(
            name: name.rawValue, path: directory.appendingPathComponent(name.fileName).path,
            reason: "the template folder changed 64 times while it was being read")
    }

    /// The names of the templates in the folder reads come from, subfolders included, sorted.
    ///
    /// Symbolic links inside the folder (to files or to folders) are not followed, so the
    /// templates behind them are not listed (reading them throws); nor are hidden files and
    /// folders (names starting with a dot), or files whose path is not a valid name.
    /// - Throws: `TemplaterError.unreadable` when the folder exists but cannot be listed.
    public func templateNames() throws(TemplaterError) -> [TemplateName] {
        let folder = state.withLock { $0.readDirectory }
        guard FileSystem.exists(folder) else { return [] }
        do {
            return try FolderWalk.items(in: folder, includeHidden: false)
                .filter { $0.kind == .file }
                .compactMap { TemplateName(fileName: $0.relativePath) }
                .sorted { $0.rawValue < $1.rawValue }
        } catch {
            throw .unreadable(name: "", path: folder.path, reason: error.templaterReason)
        }
    }

    /// Drops every template from memory; the next read of each reads its file again.
    ///
    /// Useful after editing template files by hand while the service runs.
    public func purgeCache() {
        state.withLock { state in
            state.cache.removeAll()
            state.compiled.removeAll()
            state.generation &+= 1
        }
    }

    /// Whether `name` is in the memory cache (for tests and diagnostics).
    public func isCached(_ name: TemplateName) -> Bool {
        state.withLock { $0.cache[name] != nil }
    }

    /// Whether a compiled template for `name` of the current version is in memory (for tests and
    /// diagnostics).
    public func isCompiled(_ name: TemplateName) -> Bool {
        state.withLock { state in state.compiled[name].map { $0.generation == state.generation } ?? false }
    }

    // MARK: Writing

    /// Writes `template` as the template for `name`, replacing any previous one atomically.
    ///
    /// The template's own rules are checked first. The file is pretty-printed with sorted keys,
    /// synced, and renamed into place. The folders of a name with `/` are created as needed.
    /// - Throws: `TemplaterError.invalidName`, `.invalidRules` or `.writeFailed` (also when a
    ///   folder of the name is a symbolic link: links inside the template folder are never followed).
    public func write(_ template: JSONValue, for name: String) throws(TemplaterError) {
        let name = try TemplateName(name)
        let folder = directory
        try TemplateDecoding.check(template, name: name.rawValue, path: folder.appendingPathComponent(name.fileName).path)
        let data = template.serialized(pretty: true)
        try mutate { () throws(TemplaterError) in
            let folder = self.directory
            let url = folder.appendingPathComponent(name.fileName)
            let leaf = name.leafFileName
            let temporary = ".\(leaf).write-\(UUID().uuidString)"
            var created = 0
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let parent = try FileSystem.openOrCreateFolder(folder, segments: name.folderSegments, created: &created)
                defer { parent.close() }
                do {
                    try FileSystem.createFile(data, named: temporary, in: parent, sync: true)
                    // The rename publishes the file; done under the lock with the cache update, a
                    // reader never reads the new file while the cache still answers the old template.
                    try self.state.withLock { state throws(FileSystem.RenameError) in
                        try FileSystem.rename(temporary, to: leaf, in: parent)
                        state.generation &+= 1
                        if state.bundleDirectory == nil { state.cache[name] = template }
                    }
                } catch {
                    _ = try? FileSystem.unlink(temporary, in: parent)
                    throw error
                }
            } catch {
                // Folders this write created for nothing go again.
                FileSystem.removeEmptyFolders(folder, segments: name.folderSegments, atMost: created)
                throw .writeFailed(name: name.rawValue, path: url.path, reason: error.templaterReason)
            }
        }
    }

    /// Record mode: parses a live response body and writes it as the template for `name`.
    ///
    /// Lets a service capture a real answer as its template. Rules can be added to the file later.
    /// - Returns: The template written.
    /// - Throws: `TemplaterError.invalidJSON` when the body is not JSON, or what `write` throws.
    @discardableResult
    public func record(responseBody: Data, for name: String) throws(TemplaterError) -> JSONValue {
        let template = try TemplateDecoding.decode(responseBody, name: name, path: "(response body)")
        try write(template, for: name)
        return template
    }

    /// Removes the template for `name` from disk and memory; no template is not an error.
    ///
    /// For a name with `/`, the folders of the name that removing its file leaves empty are
    /// removed too, innermost first (never the template folder itself).
    /// - Throws: `TemplaterError.invalidName` or `.removeFailed` (also when a folder of the name
    ///   is a symbolic link: links inside the template folder are never followed).
    public func remove(for name: String) throws(TemplaterError) {
        let name = try TemplateName(name)
        try mutate { () throws(TemplaterError) in
            let folder = self.directory
            let url = folder.appendingPathComponent(name.fileName)
            let removed: Bool
            do {
                let parent = try FileSystem.openFolder(folder, segments: name.folderSegments, create: false)
                defer { parent?.close() }
                // Unlinked under the lock with the cache update, as a write renames.
                removed = try self.state.withLock { state throws(FileSystem.POSIXFailure) -> Bool in
                    let removed =
                        try parent.map { parent throws(FileSystem.POSIXFailure) in
                            try FileSystem.unlink(name.leafFileName, in: parent)
                        } ?? false
                    state.generation &+= 1
                    state.cache[name] = nil
                    return removed
                }
            } catch {
                throw .removeFailed(path: url.path, reason: error.templaterReason)
            }
            if removed { FileSystem.removeEmptyFolders(folder, segments: name.folderSegments) }
        }
    }

    /// Removes the template folder with every template in it, and empties the cache.
    ///
    /// The folder is first renamed aside, so readers see all templates or none. The unpack marker
    /// goes with it: the next `unarchiveDefaultTemplates` unpacks again.
    /// - Throws: `TemplaterError.removeFailed`.
    public func removeAll() throws(TemplaterError) {
        try mutate { () throws(TemplaterError) in
            let folder = self.directory
            guard FileSystem.exists(folder) else {
                self.state.withLock {
                    $0.cache.removeAll()
                    $0.generation &+= 1
                }
                return
            }
            let aside = FileSystem.temporarySibling(of: folder, purpose: "removed")
            do {
                try self.state.withLock { state throws(FileSystem.RenameError) in
                    try FileSystem.rename(folder, to: aside)
                    state.cache.removeAll()
                    state.generation &+= 1
                }
            } catch {
                throw .removeFailed(path: folder.path, reason: error.templaterReason)
            }
            do {
                try FileSystem.removeIfPresent(aside)
            } catch {
                throw .removeFailed(path: aside.path, reason: error.templaterReason)
            }
        }
    }

    // MARK: Moving

    /// Moves the template folder and its files to `newDirectory`, and reads and writes there from now on.
    ///
    /// One file system: a rename. Across file systems: copy, verify, switch, then delete the old
    /// folder. The destination must not exist or be an empty folder. The cache stays valid, and
    /// readers keep working during the move. A failure leaves the old folder in use and intact.
    ///
    /// The new place is remembered across restarts: a store made later on the folder this one
    /// was made on uses the moved folder (a record file beside the original folder says where).
    /// - Throws: `TemplaterError.moveFailed` (also when the folder moved but the record could not
    ///   be written; the store then uses the new folder, a later process the original one).
    public func setNewPathToTemplateDirectory(_ newDirectory: URL) throws(TemplaterError) {
        try mutate { () throws(TemplaterError) in
            let plan = try self.mover.prepare(from: self.directory, to: newDirectory)
            try self.state.withLock { state throws(TemplaterError) in
                try self.mover.commit(plan)
                state.directory = newDirectory.standardizedFileURL
                state.generation &+= 1
            }
            try self.mover.finish(plan)
            do {
                try self.home.record(newDirectory)
            } catch {
                throw .moveFailed(
                    from: self.home.home.path, to: newDirectory.path,
                    reason: "moved, but where to could not be recorded for the next start: \(error)")
            }
        }
    }

    // MARK: Unpacking

    /// Unpacks a template archive into `folder` (default: this store's folder), at most once per archive.
    ///
    /// Call it at every start-up: when the folder's marker records the archive's SHA-256, it
    /// returns `.alreadyUpToDate` having written nothing. Otherwise the archive is checked against
    /// `limits` and unpacked into a hidden sibling folder, templates the service wrote itself are
    /// carried over (unless the archive holds the same name), and the new folder is swapped in by
    /// rename: a failure never leaves half an unpack. Non-template entries are skipped and
    /// templates that do not parse or whose rules are invalid are rejected, each reported by name.
    /// - Parameters:
    ///   - archive: The ZIP file.
    ///   - folder: Where to unpack; `nil` for `directory`.
    /// - Returns: What was done, entry by entry.
    /// - Throws: `TemplaterError.archiveUnreadable`, `.archiveRefused` (hostile archive: nothing
    ///   written), or `.unpackFailed`.
    @discardableResult
    public func unarchiveDefaultTemplates(from archive: URL, to folder: URL? = nil) throws(TemplaterError) -> UnarchiveReport {
        let installer = ArchiveInstaller(limits: limits)
        return try mutate { () throws(TemplaterError) -> UnarchiveReport in
            let ownFolder = self.directory
            let target = folder?.standardizedFileURL ?? ownFolder
            let (prepared, report) = try installer.prepare(archive: archive, into: target)
            guard let prepared else { return report }
            let old: URL?
            if target.path == ownFolder.path {
                old = try self.state.withLock { state throws(TemplaterError) -> URL? in
                    let old = try installer.commit(prepared)
                    state.cache.removeAll()
                    state.generation &+= 1
                    return old
                }
            } else {
                old = try installer.commit(prepared)
            }
            installer.finish(old: old)
            return report
        }
    }

    /// Runs a mutation of the folder, one at a time.
    private func mutate<Result>(_ body: () throws(TemplaterError) -> Result) throws(TemplaterError) -> Result {
        try mutation.withLock { _ throws(TemplaterError) in try body() }
    }
}
