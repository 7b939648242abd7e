import Foundation
import OpenAPIImport
import Validator

/// The descriptions the tests import: files of the test bundle, and ones written at test time.
enum Fixtures {
    /// A description file of the test target's `Fixtures` folder.
    static func url(_ name: String) throws -> URL {
        guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures") else {
            throw CocoaError(.fileNoSuchFile)
        }
        return url
    }

    /// The operations of the fixture `name`.
    static func operations(_ name: String, only: [String] = []) throws -> [ImportedOperation] {
        let description = try OpenAPIDescription.load(contentsOf: url(name), maxBytes: 1 << 20)
        return OpenAPIImporter().operations(in: description, only: only)
    }

    /// A fresh temporary folder.
    static func folder(_ label: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// `text` written to a file `name` in a fresh folder.
    static func file(_ name: String, _ text: String) throws -> URL {
        let url = try folder("openapi").appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }
}

extension ImportedOperation {
    /// The template value at `pointer` (e.g. `/tags-Rules`).
    func value(at pointer: String) -> JSONValue? {
        guard let template, let parsed = JSONPointer(pointer) else { return nil }
        return parsed.resolve(in: template)
    }

    /// The constructs of the findings, sorted.
    var constructs: [String] { findings.map(\.construct).sorted() }
}

extension [ImportedOperation] {
    /// The operation named `name`.
    subscript(named name: String) -> ImportedOperation? { first { $0.name == name } }
}
