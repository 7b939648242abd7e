import Foundation
import TestSupport
import Testing
import Validator

@testable import Templater

/// Archives whose entries sit in folders: `issues/list.json` is the template `issues/list`.
@Suite(.requires(.zip, .python3))
struct SubfolderArchiveTests {
    static let nestedFiles: [String: String] = [
        "issues/list-for-repo.json": #"{"response": [{"id": 1, "id-Rules": {"minimum": 1}}]}"#,
        "issues/get.json": #"{"response": {"id": 2}}"#,
        "repos/issues/comments/list.json": #"{"response": {"n": 3}}"#,
        "пользователи/получить.json": #"{"ответ": "да"}"#,
        "users.get.json": #"{"response": 4}"#,
    ]

    static let nestedNames = [
        "issues/get", "issues/list-for-repo", "repos/issues/comments/list",
        "users.get", "пользователи/получить",
    ].sorted()

    @Test func packThenUnpackRoundTripsSubfolders() async throws {
        try await withTemporaryFolderAsync { work in
            let source = work.appendingPathComponent("source")
            for (path, text) in Self.nestedFiles { try writeFile(text, to: source.appendingPathComponent(path)) }
            try writeFile("docs", to: source.appendingPathComponent("issues/README.md"))
            try writeFile(#"{"response": 0}"#, to: source.appendingPathComponent(".hidden/x.json"))
            let archive = work.appendingPathComponent("a.zip")
            let entries = try ArchivePacker().pack(folder: source, to: archive)
            #expect(entries.sorted() == Self.nestedFiles.keys.sorted())
            #expect(entries == entries.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
            // Info-ZIP agrees the archive is sound, and sees the folders.
            try await ArchiveTools.run("unzip", ["-tq", archive.path])
            let listed = try await ArchiveTools.run("unzip", ["-Z1", archive.path])
            #expect(listed.split(separator: "\n").map(String.init).sorted() == Self.nestedFiles.keys.sorted())

            let target = work.appendingPathComponent("t")
            let store = TemplateStore(directory: target)
            let report = try store.unarchiveDefaultTemplates(from: archive)
            #expect(report.installed == Self.nestedNames)
            #expect(report.isClean)
            #expect(try store.templateNames().map(\.rawValue) == Self.nestedNames)
            #expect(try store.template(for: "repos/issues/comments/list") == .object(["response": .object(["n": .int(3)])]))
            #expect(try store.template(for: "пользователи/получить") == .object(["ответ": .string("да")]))
            // Packing the unpacked folder gives the same entries (the marker is hidden).
            #expect(try ArchivePacker().pack(folder: target, to: work.appendingPathComponent("b.zip")) == entries)
        }
    }

    @Test(arguments: ["-0", "-9"])
    func infoZipArchiveWithSubfolders(_ level: String) async throws {
        try await withTemporaryFolderAsync { work in
            let files = work.appendingPathComponent("files")
            for (path, text) in Self.nestedFiles { try writeFile(text, to: files.appendingPathComponent(path)) }
            try writeFile("docs", to: files.appendingPathComponent("issues/README.md"))
            let archive = work.appendingPathComponent("templates.zip")
            try await ArchiveTools.run("zip", ["-r", "-q", level, archive.path, "."], in: files)
            // zip -r writes folder entries too: they are accepted.
            #expect(try await ArchiveTools.run("unzip", ["-Z1", archive.path]).contains("repos/issues/comments/\n"))

            let target = work.appendingPathComponent("out/templates")
            let store = TemplateStore(directory: target)
            let report = try store.unarchiveDefaultTemplates(from: archive)
            #expect(report.outcome == .unpacked)
            #expect(report.installed == Self.nestedNames)
            #expect(report.skipped.map(\.path) == ["issues/README.md"])
            #expect(report.isClean)
            #expect(listing(target) == [ArchiveMarker.fileName, "issues", "repos", "users.get.json", "пользователи"].sorted())
            #expect(listing(target.appendingPathComponent("issues")) == ["get.json", "list-for-repo.json"])
            #expect(try store.template(for: "issues/get") == .object(["response": .object(["id": .int(2)])]))
            #expect(try store.unarchiveDefaultTemplates(from: archive).outcome == .alreadyUpToDate)
        }
    }

    @Test func nestedEntriesAreSortedOutByName() async throws {
        try await withTemporaryFolderAsync { work in
            let archive = work.appendingPathComponent("a.zip")
            try await ArchiveTools.fixture("nested", at: archive)
            let store = TemplateStore(directory: work.appendingPathComponent("t"))
            let report = try store.unarchiveDefaultTemplates(from: archive)
            #expect(report.installed == ["issues/list-for-repo", "repos/issues/comments/list", "users.get"])
            #expect(
                report.skipped.map(\.path).sorted()
                    == [".git/config.json", "__MACOSX/issues/._list-for-repo.json", "issues/README.md"])
            #expect(report.rejected.map(\.path) == ["issues/b..c/x.json"])
            #expect(report.rejected.first?.reason.contains("'..'") == true)
            #expect(listing(work.appendingPathComponent("t")) == [ArchiveMarker.fileName, "issues", "repos", "users.get.json"])
            #expect(listing(work.appendingPathComponent("t/issues")) == ["list-for-repo.json"])
        }
    }

    @Test func changedArchiveCarriesOverNestedRuntimeTemplates() async throws {
        try await withTemporaryFolderAsync { work in
            let target = work.appendingPathComponent("templates")
            let store = TemplateStore(directory: target)
            let v1 = work.appendingPathComponent("v1.zip")
            try await IdempotentUnarchiveTests.makeArchive(
                [
                    "issues/list.json": #"{"response": "list1"}"#,
                    "issues/gone.json": #"{"response": "gone"}"#,
                    "old/only.json": #"{"response": "old"}"#,
                ], at: v1)
            try store.unarchiveDefaultTemplates(from: v1)
            try store.write(.object(["response": .string("mine")]), for: "issues/custom")
            try store.write(.object(["response": .string("recorded")]), for: "mine/deep/one")

            let v2 = work.appendingPathComponent("v2.zip")
            try await IdempotentUnarchiveTests.makeArchive(
                [
                    "issues/list.json": #"{"response": "list2"}"#,
                    "issues/new.json": #"{"response": "new"}"#,
                ], at: v2)
            let report = try store.unarchiveDefaultTemplates(from: v2)
            #expect(report.installed == ["issues/list", "issues/new"])
            #expect(report.kept == ["issues/custom.json", "mine/deep/one.json"])
            #expect(try store.templateNames().map(\.rawValue) == ["issues/custom", "issues/list", "issues/new", "mine/deep/one"])
            #expect(try store.template(for: "issues/list") == .object(["response": .string("list2")]))
            #expect(try store.template(for: "mine/deep/one") == .object(["response": .string("recorded")]))
            // The previous archive's unchanged files went, and the folder they left empty.
            #expect(try store.template(for: "issues/gone") == nil)
            #expect(!FileManager.default.fileExists(atPath: target.appendingPathComponent("old").path))
        }
    }
}
