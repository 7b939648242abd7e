import Foundation
import Validator

/// Reading a template's bytes into a `JSONValue` and checking its rules: the one place that
/// decides whether a file is a usable template.
public enum TemplateDecoding {
    /// Parses `data` as a template named `name` and checks its rules with `Validator.checkTemplate`.
    ///
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - name: The template name, for the error.
    ///   - path: Where the bytes came from, for the error.
    /// - Returns: The template.
    /// - Throws: `TemplaterError.invalidJSON` or `TemplaterError.invalidRules`.
    public static func decode(_ data: Data, name: String, path: String) throws(TemplaterError) -> JSONValue {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: data)
        } catch {
            throw .invalidJSON(name: name, path: path, reason: String(describing: error))
        }
        try check(value, name: name, path: path)
        return value
    }

    /// Checks a template's own rules with `Validator.checkTemplate`.
    ///
    /// - Throws: `TemplaterError.invalidRules` listing every problem, separated by `; `.
    public static func check(_ template: JSONValue, name: String, path: String) throws(TemplaterError) {
        let problems = Validator.checkTemplate(template)
        guard problems.isEmpty else {
            throw .invalidRules(
                name: name, path: path,
                reason: problems.map(\.description).joined(separator: "; "))
        }
    }

    /// Reads and checks every `*.json` file of `folder`, subfolders included, in path order.
    ///
    /// Files are named by their path inside the folder (`issues/list.json`). Hidden files and
    /// folders are left out. A symbolic link is reported as a failure and not followed: Templater
    /// never reads through a link inside a template folder.
    /// - Returns: One result per file: the template, or why it is unusable.
    /// - Throws: `TemplaterError.unreadable` when the folder itself cannot be listed.
    public static func checkFolder(_ folder: URL) throws(TemplaterError) -> [(file: String, result: Result<JSONValue, TemplaterError>)] {
        let items: [FolderWalk.Item]
        do {
            items = try FolderWalk.items(in: folder, includeHidden: false)
        } catch {
            throw .unreadable(name: "", path: folder.path, reason: error.templaterReason)
        }
        return items.compactMap { item -> (file: String, result: Result<JSONValue, TemplaterError>)? in
            let file = item.relativePath
            let url = folder.appendingPathComponent(file)
            let name = file.hasSuffix(".json") ? String(file.dropLast(5)) : file
            switch item.kind {
            case .symbolicLink:
                let reason = FileSystem.InsideError.symbolicLink(file).description
                return (file, .failure(.unreadable(name: name, path: url.path, reason: reason)))
            case .file where file.hasSuffix(".json"):
                break
            default:
                return nil
            }
            if let reason = TemplateName.problem(with: name) {
                return (file, .failure(.invalidName(name: name, reason: reason)))
            }
            do {
                let data = try FileSystem.readRegularFile(atPath: url.path)
                return (file, Result { () throws(TemplaterError) in try decode(data, name: name, path: url.path) })
            } catch {
                return (file, .failure(.unreadable(name: name, path: url.path, reason: String(describing: error))))
            }
        }.sorted { Array($0.file.utf8).lexicographicallyPrecedes(Array($1.file.utf8)) }
    }
}
