/// What `unarchiveDefaultTemplates` did: whether it unpacked, and what it did with each entry.
public struct UnarchiveReport: Sendable, Equatable {
    /// Whether the archive was unpacked or found already installed.
    public enum Outcome: Sendable, Equatable {
        /// The archive was unpacked and swapped in.
        case unpacked
        /// The folder already holds this archive (same SHA-256): nothing was written.
        case alreadyUpToDate
    }

    /// An entry that was not installed (or a file of the folder that was not kept), and why.
    public struct Entry: Sendable, Equatable, CustomStringConvertible {
        /// The entry's path inside the archive (or the file's inside the folder).
        public var path: String
        /// Why it was not installed, in one line.
        public var reason: String

        /// `path: reason`, on one line.
        public var description: String { "\(path): \(reason)" }
    }

    /// Whether the archive was unpacked.
    public var outcome: Outcome
    /// The archive's SHA-256, as 64 hex digits.
    public var archiveSHA256: String
    /// The templates installed from the archive, sorted; an entry `issues/list.json` installs
    /// the template `issues/list`.
    public var installed: [String] = []
    /// Files already in the folder that were kept (written by the service, or not replaceable),
    /// by their path inside the folder, sorted.
    public var kept: [String] = []
    /// Entries skipped because they are not templates (not `.json` files, or hidden), e.g. a
    /// README; and files of the folder that could not be kept (a symbolic link, which Templater
    /// never follows, or a file in the way of a folder of the archive).
    public var skipped: [Entry] = []
    /// Templates refused by name: not valid JSON, invalid rules, or an invalid name. A previous
    /// file of the same name, if any, is kept.
    public var rejected: [Entry] = []

    /// True when every template of the archive was installed (skipped non-templates are fine).
    public var isClean: Bool { rejected.isEmpty }
}
