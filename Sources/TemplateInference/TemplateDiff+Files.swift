import Foundation
import JSONCore
import Templater

/// Why two template sets could not be compared; nothing was compared.
public enum TemplateDiffError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One side is a folder and the other a file: a set of methods cannot be compared with one.
    case folderAgainstFile(folder: String, file: String)
    /// Nothing is at this path.
    case missing(path: String)
    /// A file or folder could not be read, or a template is not valid (not JSON, wrong rules,
    /// a symbolic link, larger than `Templater.maximumTemplateBytes`).
    case unreadable(path: String, reason: String)

    /// One line naming the path.
    public var description: String {
        switch self {
        case let .folderAgainstFile(folder, file):
            return "cannot compare the folder \(folder) with the file \(file): give two template files or two folders"
        case let .missing(path):
            return "nothing at \(path)"
        case let .unreadable(path, reason):
            return "\(path): \(reason)"
        }
    }
}

extension TemplateDiff {
    /// The changes from the templates at `old` to those at `new`: two template files (the
    /// method is named after `old`'s file), or two folders whose templates are matched by name
    /// (subfolders included). A method only in `old` is `methodRemoved` (breaking: its calls
    /// would find no template), one only in `new` is `methodAdded`.
    /// - Throws: `TemplateDiffError` when a path is missing, one is a folder and the other a
    ///   file, or a template cannot be read; nothing is compared then.
    public static func changes(from old: URL, to new: URL) throws(TemplateDiffError) -> [TemplateChange] {
        let (oldIsFolder, newIsFolder) = (try isFolder(old), try isFolder(new))
        switch (oldIsFolder, newIsFolder) {
        case (false, false):
            let name = old.deletingPathExtension().lastPathComponent
            return changes(from: try readTemplate(old), to: try readTemplate(new), method: name)
        case (true, true):
            let (oldTemplates, newTemplates) = (try readFolder(old), try readFolder(new))
            var changes: [TemplateChange] = []
            for name in Set(oldTemplates.keys).union(newTemplates.keys).sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                switch (oldTemplates[name], newTemplates[name]) {
                case let (oldTemplate?, newTemplate?):
                    changes += Self.changes(from: oldTemplate, to: newTemplate, method: name)
                case (_?, nil):
                    changes.append(
                        TemplateChange(
                            method: name, pointer: "", kind: .methodRemoved, isBreaking: true, old: "template", new: nil,
                            detail: "no template in the new set: its calls would fail for want of one"))
                case (nil, _?):
                    changes.append(
                        TemplateChange(
                            method: name, pointer: "", kind: .methodAdded, isBreaking: false, old: nil, new: "template",
                            detail: "a template only in the new set"))
                case (nil, nil):
                    break
                }
            }
            return changes
        case (true, false):
            throw .folderAgainstFile(folder: old.path, file: new.path)
        case (false, true):
            throw .folderAgainstFile(folder: new.path, file: old.path)
        }
    }

    private static func isFolder(_ url: URL) throws(TemplateDiffError) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { throw .missing(path: url.path) }
        return isDirectory.boolValue
    }

    /// One template file: a regular file of at most `Templater.maximumTemplateBytes`, JSON, with valid rules.
    private static func readTemplate(_ url: URL) throws(TemplateDiffError) -> JSONValue {
        let data: Data
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            guard attributes[.type] as? FileAttributeType == .typeRegular else {
                throw TemplateDiffError.unreadable(path: url.path, reason: "not a regular file")
            }
            let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
            guard size <= Templater.maximumTemplateBytes else {
                throw TemplateDiffError.unreadable(
                    path: url.path, reason: "\(size) bytes, more than the \(Templater.maximumTemplateBytes) a template may have")
            }
            data = try Data(contentsOf: url)
        } catch let error as TemplateDiffError {
            throw error
        } catch {
            throw .unreadable(path: url.path, reason: (error as NSError).localizedDescription)
        }
        do {
            return try TemplateDecoding.decode(data, name: url.deletingPathExtension().lastPathComponent, path: url.path)
        } catch {
            throw .unreadable(path: url.path, reason: error.description)
        }
    }

    /// Every template of a folder by name; the first file that is not a valid template fails it all.
    private static func readFolder(_ folder: URL) throws(TemplateDiffError) -> [String: JSONValue] {
        let results: [(file: String, result: Result<JSONValue, TemplaterError>)]
        do { results = try TemplateDecoding.checkFolder(folder) } catch { throw .unreadable(path: folder.path, reason: error.description) }
        var templates: [String: JSONValue] = [:]
        for (file, result) in results {
            switch result {
            case let .success(template): templates[String(file.dropLast(".json".count))] = template
            case let .failure(error): throw .unreadable(path: folder.appendingPathComponent(file).path, reason: error.description)
            }
        }
        return templates
    }
}
