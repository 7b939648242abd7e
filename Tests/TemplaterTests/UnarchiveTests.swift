import Foundation
import TestSupport
import Testing
import Validator

@testable import Templater

/// Archives made by real tools at test time, unpacked through a store.
@Suite(.requires(.zip, .python3))
struct UnarchiveTests {
    struct ToolCase: Sendable, CustomTestStringConvertible {
        var label: String
        var make: @Sendable (URL, URL) async throws -> Void
        var testDescription: String { label }
    }

    /// Lays out the same good/bad files as the Python "good" fixture, for Info-ZIP.
    static func layOutFiles(in folder: URL) throws {
        try writeFile(#"{"response": [{"id": 1, "id-Rules": {"minimum": 1}}]}"#, to: folder.appendingPathComponent("templates/users.get.json"))
        try writeFile(#"{"response": {"post_id": 7}}"#, to: folder.appendingPathComponent("templates/nested/wall.post.json"))
        try writeFile(#"{"ответ": "да"}"#, to: folder.appendingPathComponent("пользователи.get.json"))
        try writeFile("not a template", to: folder.appendingPathComponent("README.txt"))
        try writeFile(#"{"response": "#, to: folder.appendingPathComponent("broken.get.json"))
        try writeFile(#"{"x": 1, "x-Rules": {"minimun": 1}}"#, to: folder.appendingPathComponent("badrules.get.json"))
    }

    static let tools: [ToolCase] = [
        ToolCase(label: "Info-ZIP zip, deflated") { work, archive in
            let files = work.appendingPathComponent("files")
            try layOutFiles(in: files)
            try await ArchiveTools.run("zip", ["-r", "-q", "-9", archive.path, "."], in: files)
        },
        ToolCase(label: "Info-ZIP zip, stored") { work, archive in
            let files = work.appendingPathComponent("files")
            try layOutFiles(in: files)
            try await ArchiveTools.run("zip", ["-r", "-q", "-0", archive.path, "."], in: files)
        },
        ToolCase(label: "Python zipfile, deflated") { _, archive in
            try await ArchiveTools.fixture("good", at: archive, ["deflated"])
        },
        ToolCase(label: "Python zipfile, stored") { _, archive in
            try await ArchiveTools.fixture("good", at: archive, ["stored"])
        },
    ]

    @Test(arguments: tools)
    func unpacksRealArchives(_ tool: ToolCase) async throws {
        try await withTemporaryFolderAsync { work in
            let archive = work.appendingPathComponent("templates.zip")
            try await tool.make(work, archive)
            let target = work.appendingPathComponent("out/templates")
            let store = TemplateStore(directory: target)
            let report = try store.unarchiveDefaultTemplates(from: archive)
            #expect(report.outcome == .unpacked)
            // Folders are kept: an entry's path in the archive is the template's path in the folder.
            #expect(report.installed == ["templates/users.get", "templates/nested/wall.post", "пользователи.get"].sorted())
            #expect(report.skipped.map(\.path) == ["README.txt"])
            #expect(report.rejected.map(\.path).sorted() == ["badrules.get.json", "broken.get.json"])
            #expect(!report.isClean)
            #expect(try store.template(for: "templates/nested/wall.post") == .object(["response": .object(["post_id": .int(7)])]))
            #expect(try store.template(for: "пользователи.get") == .object(["ответ": .string("да")]))
            #expect(listing(target) == [ArchiveMarker.fileName, "templates", "пользователи.get.json"].sorted())
            #expect(listing(target.appendingPathComponent("templates")) == ["nested", "users.get.json"])
            #expect(listing(target.deletingLastPathComponent()) == ["templates"])
        }
    }

    @Test func packThenUnpackRoundTrips() async throws {
        try await withTemporaryFolderAsync { work in
            let source = work.appendingPathComponent("source")
            for index in 0..<20 {
                try writeFile(#"{"response": {"n": \#(index)}}"#, to: source.appendingPathComponent("m\(index).get.json"))
            }
            let archive = work.appendingPathComponent("a.zip")
            let names = try ArchivePacker().pack(folder: source, to: archive)
            #expect(names.count == 20)
            // Info-ZIP agrees the archive is sound.
            try await ArchiveTools.run("unzip", ["-tq", archive.path])
            let store = TemplateStore(directory: work.appendingPathComponent("t"))
            #expect(try store.unarchiveDefaultTemplates(from: archive).installed.count == 20)
            #expect(try store.template(for: "m7.get") == .object(["response": .object(["n": .int(7)])]))
        }
    }

    @Test func notAZipIsRefused() throws {
        try withTemporaryFolder { work in
            let archive = work.appendingPathComponent("a.zip")
            try writeFile("this is not a zip file", to: archive)
            let store = TemplateStore(directory: work.appendingPathComponent("t"))
            #expect(throws: TemplaterError.self) { try store.unarchiveDefaultTemplates(from: archive) }
            #expect(listing(work) == ["a.zip"])
        }
    }

    /// The archive fuzzer's crash: a ZIP64 locator aiming past Int64 made `FileHandle.seek` trap.
    @Test func zip64EndRecordBeyondTheFileIsUnreadable() async throws {
        try await withTemporaryFolderAsync { work in
            let archive = work.appendingPathComponent("a.zip")
            try await ArchiveTools.fixture("zip64-locator-beyond-file", at: archive)
            let store = TemplateStore(directory: work.appendingPathComponent("t"))
            do {
                _ = try store.unarchiveDefaultTemplates(from: archive)
                Issue.record("a ZIP64 end record beyond the file was accepted")
            } catch let error as TemplaterError {
                guard case let .archiveUnreadable(_, reason) = error else {
                    Issue.record("expected archiveUnreadable, got \(error)")
                    return
                }
                #expect(reason.contains("ZIP64 end record outside the file"), "reason: \(reason)")
            }
            #expect(listing(work) == ["a.zip"])
        }
    }
}
