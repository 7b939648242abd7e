import Foundation
import SampleTemplates
import TestSupport
import Testing
import Validator

@testable import Templater

/// The SampleAPI templates in `Templates/` and the archive built from them.
struct ShippedTemplatesTests {
    static let folder = repositoryRoot.appendingPathComponent("Templates/SampleAPI")
    static let archive = repositoryRoot.appendingPathComponent("Templates/APIManagerResponseDefaultTemplates.zip")

    @Test func everyShippedTemplateIsValid() async throws {
        let results = try TemplateDecoding.checkFolder(Self.folder)
        #expect(results.map { String($0.file.dropLast(5)) } == SampleTemplates.methodNames)
        for (file, result) in results {
            if case let .failure(error) = result { Issue.record("\(file): \(error)") }
        }
    }

    /// Entry names and contents of an archive, read back by Python's zipfile (an independent reader).
    static func contents(of archiveURL: URL) async throws -> [String: Data] {
        let script = """
            import sys, zipfile, json
            z = zipfile.ZipFile(sys.argv[1])
            print(json.dumps({i.filename: z.read(i).hex() for i in z.infolist()}))
            """
        let output = try await ArchiveTools.python(script, [archiveURL.path])
        let decoded = try JSONDecoder().decode([String: String].self, from: Data(output.utf8))
        return decoded.mapValues { hex in
            var bytes: [UInt8] = []
            var index = hex.startIndex
            while index < hex.endIndex {
                let next = hex.index(index, offsetBy: 2)
                bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
                index = next
            }
            return Data(bytes)
        }
    }

    @Test(.requires(.python3)) func shippedArchiveIsNotStale() async throws {
        var expected: [String: Data] = [:]
        for file in try ArchivePacker().templateFiles(in: Self.folder) {
            expected[file.lastPathComponent] = try Data(contentsOf: file)
        }
        let shipped = try await Self.contents(of: Self.archive)
        #expect(
            shipped.keys.sorted() == expected.keys.sorted(),
            "Templates/APIManagerResponseDefaultTemplates.zip is stale: run `swift run apilayer templates pack Templates/SampleAPI --out Templates/APIManagerResponseDefaultTemplates.zip`"
        )
        for (name, data) in expected where shipped[name] != data {
            Issue.record("\(name) differs in the shipped archive: re-run `apilayer templates pack`")
        }
    }

    @Test(.requires(.python3)) func packingIsDeterministic() async throws {
        try await withTemporaryFolderAsync { work in
            let first = work.appendingPathComponent("1.zip")
            let second = work.appendingPathComponent("2.zip")
            try ArchivePacker().pack(folder: Self.folder, to: first)
            try ArchivePacker().pack(folder: Self.folder, to: second)
            #expect(try Data(contentsOf: first) == Data(contentsOf: second))
            let packed = try await Self.contents(of: first)
            #expect(try await packed == Self.contents(of: Self.archive))
        }
    }

    @Test func bundledResourcesWork() throws {
        try withTemporaryFolder { work in
            let store = TemplateStore(directory: work.appendingPathComponent("t"))
            store.loadTemplateFromBundle = SampleTemplates.directory
            for name in SampleTemplates.methodNames {
                #expect(try store.template(for: name) != nil, "\(name)")
            }
            store.loadTemplateFromBundle = nil
            let report = try store.unarchiveDefaultTemplates(from: SampleTemplates.archiveURL)
            #expect(report.installed == SampleTemplates.methodNames)
            #expect(report.isClean && report.skipped.isEmpty)
            #expect(try store.templateNames().map(\.rawValue) == SampleTemplates.methodNames)
        }
    }
}
