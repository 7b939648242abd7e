import Foundation
import TestSupport
import Testing
import Validator

@testable import Templater

@Suite(.requires(.zip))
struct IdempotentUnarchiveTests {
    /// Packs `files` (name → JSON text) into an archive with Info-ZIP.
    static func makeArchive(_ files: [String: String], at archive: URL) async throws {
        let folder = archive.deletingLastPathComponent().appendingPathComponent("src-\(UUID().uuidString)")
        for (name, text) in files { try writeFile(text, to: folder.appendingPathComponent(name)) }
        try? FileManager.default.removeItem(at: archive)
        try await ArchiveTools.run("zip", ["-q", "-r", archive.path, "."], in: folder)
        try FileManager.default.removeItem(at: folder)
    }

    static func inode(of url: URL) throws -> UInt64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
    }

    @Test func secondCallDoesNotUnpack() async throws {
        try await withTemporaryFolderAsync { work in
            let archive = work.appendingPathComponent("v1.zip")
            try await Self.makeArchive(["a.get.json": #"{"response": "a1"}"#, "b.get.json": #"{"response": "b1"}"#], at: archive)
            let target = work.appendingPathComponent("templates")
            let store = TemplateStore(directory: target)
            #expect(try store.unarchiveDefaultTemplates(from: archive).outcome == .unpacked)
            let folderInode = try Self.inode(of: target)
            let fileInode = try Self.inode(of: target.appendingPathComponent("a.get.json"))
            // A template the service deleted since: an unpack would bring it back.
            try FileManager.default.removeItem(at: target.appendingPathComponent("b.get.json"))

            let second = try store.unarchiveDefaultTemplates(from: archive)
            #expect(second.outcome == .alreadyUpToDate)
            #expect(second.installed.isEmpty)
            #expect(try Self.inode(of: target) == folderInode)
            #expect(try Self.inode(of: target.appendingPathComponent("a.get.json")) == fileInode)
            #expect(!FileManager.default.fileExists(atPath: target.appendingPathComponent("b.get.json").path))
            // A fresh store (a restart) agrees.
            #expect(try TemplateStore(directory: target).unarchiveDefaultTemplates(from: archive).outcome == .alreadyUpToDate)
        }
    }

    @Test func changedArchiveIsUnpackedAgainKeepingRuntimeTemplates() async throws {
        try await withTemporaryFolderAsync { work in
            let target = work.appendingPathComponent("templates")
            let store = TemplateStore(directory: target)
            let v1 = work.appendingPathComponent("v1.zip")
            try await Self.makeArchive(
                [
                    "a.get.json": #"{"response": "a1"}"#,
                    "b.get.json": #"{"response": "b1"}"#,
                    "gone.get.json": #"{"response": "gone"}"#,
                ], at: v1)
            try store.unarchiveDefaultTemplates(from: v1)
            #expect(try store.template(for: "a.get") == .object(["response": .string("a1")]))

            // At run time the service records its own templates, one of them over an archive one.
            try store.write(.object(["response": .string("mine")]), for: "custom.get")
            try store.write(.object(["response": .string("b-recorded")]), for: "b.get")
            try store.write(.object(["response": .string("a-recorded")]), for: "a.get")

            let v2 = work.appendingPathComponent("v2.zip")
            try await Self.makeArchive(
                [
                    "a.get.json": #"{"response": "a2"}"#,
                    "new.get.json": #"{"response": "new"}"#,
                ], at: v2)
            let report = try store.unarchiveDefaultTemplates(from: v2)
            #expect(report.outcome == .unpacked)
            #expect(report.installed == ["a.get", "new.get"])
            #expect(report.kept == ["b.get.json", "custom.get.json"])
            // The archive holds a.get: its version wins, and the cache was refreshed.
            #expect(try store.template(for: "a.get") == .object(["response": .string("a2")]))
            #expect(try store.template(for: "new.get") == .object(["response": .string("new")]))
            #expect(try store.template(for: "custom.get") == .object(["response": .string("mine")]))
            #expect(try store.template(for: "b.get") == .object(["response": .string("b-recorded")]))
            // gone.get came from v1 unchanged and v2 dropped it.
            #expect(try store.template(for: "gone.get") == nil)
            #expect(listing(work).filter { $0.hasPrefix(".") }.isEmpty)
        }
    }

    @Test func rejectedTemplateKeepsThePreviousVersion() async throws {
        try await withTemporaryFolderAsync { work in
            let target = work.appendingPathComponent("templates")
            let store = TemplateStore(directory: target)
            let v1 = work.appendingPathComponent("v1.zip")
            try await Self.makeArchive(["a.get.json": #"{"response": "a1"}"#], at: v1)
            try store.unarchiveDefaultTemplates(from: v1)
            let v2 = work.appendingPathComponent("v2.zip")
            try await Self.makeArchive(["a.get.json": #"{"response": "#], at: v2)
            let report = try store.unarchiveDefaultTemplates(from: v2)
            #expect(report.rejected.map(\.path) == ["a.get.json"])
            #expect(try store.template(for: "a.get") == .object(["response": .string("a1")]))
        }
    }

    @Test func unpackingIntoAnotherFolderLeavesTheStoreAlone() async throws {
        try await withTemporaryFolderAsync { work in
            let archive = work.appendingPathComponent("v1.zip")
            try await Self.makeArchive(["a.get.json": #"{"response": "a1"}"#], at: archive)
            let store = TemplateStore(directory: work.appendingPathComponent("mine"))
            let other = work.appendingPathComponent("other")
            try store.unarchiveDefaultTemplates(from: archive, to: other)
            #expect(listing(other).contains("a.get.json"))
            #expect(try store.template(for: "a.get") == nil)
        }
    }
}
