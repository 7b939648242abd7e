import Foundation
import Validator

/// Sample responses (templates) on disk and in memory, named after API methods.
///
/// A static front over one shared `TemplateStore`. A service unpacks its shipped archive at
/// start-up (a checksum comparison when it is already unpacked), then the validator asks for
/// templates by method name:
///
/// ```swift
/// try Templater.unarchiveDefaultTemplates(from: SampleTemplates.archiveURL)
/// let template = try Templater.template(for: "users.get")   // disk once, then memory
/// try Templater.write(liveResponse, for: "users.get")         // record mode
/// ```
///
/// Tests make their own `TemplateStore` on a temporary folder instead of using the shared one.
public enum Templater {
    /// The environment variable that overrides the default template folder.
    public static let directoryEnvironmentVariable = "APILAYER_TEMPLATES_DIR"

    /// The largest template file read, in bytes (16 MiB): a larger one is refused as
    /// `TemplaterError.unreadable` rather than read into memory. A template file must also be a
    /// regular file: a FIFO, device, socket or folder in its place is refused without blocking.
    public static let maximumTemplateBytes = 16 << 20

    /// The store every static member forwards to.
    public static let shared = TemplateStore(directory: defaultTemplateDirectory())

    /// The default template folder: `$APILAYER_TEMPLATES_DIR` when set, else
    /// `$XDG_DATA_HOME/apilayer/templates`, else `~/.local/share/apilayer/templates`.
    public static func defaultTemplateDirectory(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        if let explicit = environment[directoryEnvironmentVariable], !explicit.isEmpty {
            return URL(fileURLWithPath: explicit, isDirectory: true)
        }
        let dataHome: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            let home =
                environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
                ?? FileManager.default.homeDirectoryForCurrentUser
            dataHome = home.appendingPathComponent(".local/share", isDirectory: true)
        }
        return dataHome.appendingPathComponent("apilayer/templates", isDirectory: true)
    }

    /// The template folder in use. Change it with `setNewPathToTemplateDirectory(_:)`, which moves the files.
    public static var pathToTemplateDirectory: URL { shared.directory }

    /// A folder of shipped templates (a resource bundle's) to read from instead of the template folder.
    ///
    /// `nil` (the default) reads `pathToTemplateDirectory`. See `TemplateStore.loadTemplateFromBundle`.
    public static var loadTemplateFromBundle: URL? {
        get { shared.loadTemplateFromBundle }
        set { shared.loadTemplateFromBundle = newValue }
    }

    /// The template for an API method name such as `users.get`: from memory, else from disk.
    ///
    /// - Returns: The template, or `nil` when there is none.
    /// - Throws: `TemplaterError` when the name is invalid or the file is broken.
    public static func template(for name: String) throws(TemplaterError) -> JSONValue? {
        try shared.template(for: name)
    }

    /// The template for an API method whose raw value is its name (e.g. an enum `MyAPI: String`).
    public static func template<Method: RawRepresentable>(for method: Method) throws(TemplaterError) -> JSONValue?
    where Method.RawValue == String {
        try shared.template(for: method)
    }

    /// Writes `template` for `name`, on disk and in memory. See `TemplateStore.write(_:for:)`.
    public static func write(_ template: JSONValue, for name: String) throws(TemplaterError) {
        try shared.write(template, for: name)
    }

    /// Record mode: writes a live response body as the template for `name`.
    @discardableResult
    public static func record(responseBody: Data, for name: String) throws(TemplaterError) -> JSONValue {
        try shared.record(responseBody: responseBody, for: name)
    }

    /// Removes the template for `name` from disk and memory.
    public static func remove(for name: String) throws(TemplaterError) {
        try shared.remove(for: name)
    }

    /// Removes the template folder and every template, and empties the cache.
    public static func removeAll() throws(TemplaterError) {
        try shared.removeAll()
    }

    /// Moves the template folder with its files to `path`. See `TemplateStore.setNewPathToTemplateDirectory(_:)`.
    public static func setNewPathToTemplateDirectory(_ path: URL) throws(TemplaterError) {
        try shared.setNewPathToTemplateDirectory(path)
    }

    /// Unpacks a template archive, at most once per archive. See `TemplateStore.unarchiveDefaultTemplates(from:to:)`.
    @discardableResult
    public static func unarchiveDefaultTemplates(from archive: URL, to folder: URL? = nil) throws(TemplaterError) -> UnarchiveReport {
        try shared.unarchiveDefaultTemplates(from: archive, to: folder)
    }
}
