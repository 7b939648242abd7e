import Foundation
import Validator

/// What `apilayer templates import` did: every operation, written or skipped, with its
/// findings.
package struct ImportReport: Sendable {
    /// The description's path as given.
    package var source: String
    /// The description's title.
    package var title: String
    /// The description's `openapi` field.
    package var version: String
    /// Every operation considered.
    package var operations: [ImportedOperation]

    /// An import report.
    package init(source: String, title: String, version: String, operations: [ImportedOperation]) {
        self.source = source
        self.title = title
        self.version = version
        self.operations = operations
    }

    /// How many templates were written.
    package var written: Int { operations.filter(\.isWritten).count }
    /// The operations without a template.
    package var skipped: [ImportedOperation] { operations.filter { !$0.isWritten } }
    /// Every finding of every operation.
    package var findingCount: Int { operations.reduce(0) { $0 + $1.findings.count } }

    /// How many findings name each construct, most frequent first.
    package var constructCounts: [(construct: String, count: Int)] {
        var counts: [String: Int] = [:]
        for operation in operations { for finding in operation.findings { counts[finding.construct, default: 0] += 1 } }
        return counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// 0 when every operation was written, 1 when some were skipped.
    package var exitCode: Int32 { skipped.isEmpty ? 0 : 1 }

    /// The report as one JSON object (`--json`).
    package var json: JSONValue {
        .object([
            "source": .string(source), "title": .string(title), "openapi": .string(version),
            "operations": .array(operations.map(\.json)), "written": .int(written), "skipped": .int(skipped.count),
            "findings": .int(findingCount),
            "constructs": .object(Dictionary(uniqueKeysWithValues: constructCounts.map { ($0.construct, JSONValue.int($0.count)) })),
        ])
    }

    /// The report for people: one line per operation and per finding, then a summary.
    package var text: String {
        var lines: [String] = []
        for operation in operations {
            if operation.isWritten {
                lines.append("wrote \(operation.name).json  (\(operation.method.uppercased()) \(operation.path), \(operation.status ?? 200))")
            } else {
                lines.append("skipped \(operation.name): \(operation.skipReason ?? "no template")")
            }
            for finding in operation.findings { lines.append("    \(finding.kind.rawValue) \(finding)") }
        }
        lines.append(
            "\(Self.count(written, "template")) written, \(Self.count(skipped.count, "operation")) skipped, "
                + "\(Self.count(findingCount, "finding")), of \(Self.count(operations.count, "operation")) in \(title) (OpenAPI \(version))"
        )
        return lines.joined(separator: "\n")
    }

    /// `1 template`, `2 templates`.
    private static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}

/// Writes the templates of an import into a folder.
package enum TemplateFileWriter {
    /// Writes `folder/<name>.json` for every operation that has a template (a name with `/`
    /// goes into subfolders).
    ///
    /// Each file is written beside its place under a name no template has, then renamed over
    /// it: a reader sees the old file or the new one, never half of one. Nothing is flushed to
    /// the disk one file at a time (an import of thousands of operations would wait on the disk
    /// thousands of times); an import cut short by a crash is run again.
    ///
    /// - Returns: the paths written, relative to `folder`.
    package static func write(_ operations: [ImportedOperation], to folder: URL) throws -> [String] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var written: [String] = []
        var folders: Set<String> = [folder.path]
        for operation in operations where operation.isWritten {
            let file = folder.appendingPathComponent(operation.name + ".json")
            let parent = file.deletingLastPathComponent()
            if folders.insert(parent.path).inserted {
                try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
            }
            var data = operation.template!.serialized(pretty: true)
            data.append(UInt8(ascii: "\n"))
            let temporary = parent.appendingPathComponent(file.lastPathComponent + ".importing-\(UUID().uuidString)")
            try data.write(to: temporary)
            guard rename(temporary.path, file.path) == 0 else {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(at: temporary)
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path, NSLocalizedDescriptionKey: reason])
            }
            written.append(operation.name + ".json")
        }
        return written
    }
}
