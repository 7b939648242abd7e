import Foundation
import TestSupport
import Testing
import Validator

@testable import Templater

/// A symbolic link inside the template folder is never followed: nothing outside the folder is
/// read, written, removed or listed through it.
struct SymbolicLinkTests {
    /// A template folder whose `issues` (or `nested/issues`) is a link to a folder outside it,
    /// which holds a valid template.
    struct Layout {
        var work: URL
        var folder: URL { work.appendingPathComponent("templates") }
        var outside: URL { work.appendingPathComponent("outside") }

        init(_ work: URL, linkAt linkPath: String = "issues") throws {
            self.work = work
            try writeFile(#"{"response": "outside"}"#, to: work.appendingPathComponent("outside/list.json"))
            try writeFile(#"{"response": "inside"}"#, to: work.appendingPathComponent("templates/users.get.json"))
            let link = work.appendingPathComponent("templates").appendingPathComponent(linkPath)
            try FileManager.default.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: work.appendingPathComponent("outside"))
        }
    }

    static func expectSymbolicLinkRefusal(_ body: () throws -> Void) {
        do {
            try body()
            Issue.record("a path through a symbolic link was used")
        } catch let error as TemplaterError {
            #expect(error.description.contains("symbolic link"), "\(error)")
            #expect(!error.description.contains("\n"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test(arguments: ["issues", "nested/issues"])
    func linkedSubfolderIsNeverFollowed(_ linkPath: String) throws {
        try withTemporaryFolder { work in
            let layout = try Layout(work, linkAt: linkPath)
            let store = TemplateStore(directory: layout.folder)
            let before = snapshot(layout.outside)
            Self.expectSymbolicLinkRefusal { _ = try store.template(for: "\(linkPath)/list") }
            Self.expectSymbolicLinkRefusal { try store.write(sampleTemplate(1), for: "\(linkPath)/new") }
            Self.expectSymbolicLinkRefusal { try store.write(sampleTemplate(1), for: "\(linkPath)/deeper/new") }
            Self.expectSymbolicLinkRefusal { try store.remove(for: "\(linkPath)/list") }
            #expect(try store.templateNames().map(\.rawValue) == ["users.get"])
            #expect(!store.isCached(try TemplateName("\(linkPath)/list")))
            #expect(snapshot(layout.outside) == before)
            #expect(listing(layout.outside) == ["list.json"])
            // The link itself is still there, untouched.
            #expect(FolderWalk.kind(of: layout.folder.appendingPathComponent(linkPath)) == .symbolicLink)

            try store.removeAll()
            #expect(snapshot(layout.outside) == before)
        }
    }

    @Test func linkedTemplateFileIsNotReadAndIsReplacedNotWrittenThrough() throws {
        try withTemporaryFolder { work in
            let layout = try Layout(work)
            let link = layout.folder.appendingPathComponent("linked.json")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: layout.outside.appendingPathComponent("list.json"))
            let store = TemplateStore(directory: layout.folder)
            let before = snapshot(layout.outside)
            Self.expectSymbolicLinkRefusal { _ = try store.template(for: "linked") }
            #expect(try store.templateNames().map(\.rawValue) == ["users.get"])
            // A write renames over the link: the link goes, its target stays as it was.
            try store.write(sampleTemplate(1), for: "linked")
            #expect(FolderWalk.kind(of: link) == .file)
            #expect(snapshot(layout.outside) == before)
            try FileManager.default.removeItem(at: link)
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: layout.outside.appendingPathComponent("list.json"))
            // A removal unlinks the link, never its target.
            try store.remove(for: "linked")
            #expect(!FileSystem.exists(link))
            #expect(snapshot(layout.outside) == before)
        }
    }

    @Test func linkedTemplateFolderItselfIsFine() throws {
        // The template folder may itself be a link (only links below it are refused).
        try withTemporaryFolder { work in
            try writeFile(#"{"response": 1}"#, to: work.appendingPathComponent("real/issues/list.json"))
            let linked = work.appendingPathComponent("linked")
            try FileManager.default.createSymbolicLink(at: linked, withDestinationURL: work.appendingPathComponent("real"))
            let store = TemplateStore(directory: linked)
            #expect(try store.template(for: "issues/list") == .object(["response": .int(1)]))
            try store.write(sampleTemplate(1), for: "issues/new")
            #expect(FileManager.default.fileExists(atPath: work.appendingPathComponent("real/issues/new.json").path))
        }
    }

    @Test(arguments: [false, true])
    func moveCarriesTheLinkNotItsTarget(forceCopy: Bool) throws {
        try withTemporaryFolder { work in
            let layout = try Layout(work)
            let store = TemplateStore(directory: layout.folder, limits: .default, mover: DirectoryMover(forceCopy: forceCopy))
            let before = snapshot(layout.outside)
            let destination = work.appendingPathComponent("moved")
            try store.setNewPathToTemplateDirectory(destination)
            #expect(FolderWalk.kind(of: destination.appendingPathComponent("issues")) == .symbolicLink)
            #expect(snapshot(layout.outside) == before)
            Self.expectSymbolicLinkRefusal { _ = try store.template(for: "issues/list") }
            #expect(try store.template(for: "users.get") == .object(["response": .string("inside")]))
        }
    }

    @Test(.requires(.zip)) func unpackNeverWritesThroughALinkInTheFolder() async throws {
        try await withTemporaryFolderAsync { work in
            let layout = try Layout(work)
            let archive = work.appendingPathComponent("a.zip")
            try await IdempotentUnarchiveTests.makeArchive(["issues/list.json": #"{"response": "archive"}"#], at: archive)
            let store = TemplateStore(directory: layout.folder)
            let before = snapshot(layout.outside)
            let report = try store.unarchiveDefaultTemplates(from: archive)
            #expect(report.installed == ["issues/list"])
            #expect(report.kept == ["users.get.json"])
            #expect(report.skipped.map(\.path) == ["issues"])
            #expect(snapshot(layout.outside) == before)
            #expect(FolderWalk.kind(of: layout.folder.appendingPathComponent("issues")) == .folder)
            #expect(try store.template(for: "issues/list") == .object(["response": .string("archive")]))
        }
    }

    @Test func checkAndPackRefuseLinks() throws {
        try withTemporaryFolder { work in
            let layout = try Layout(work)
            let results = try TemplateDecoding.checkFolder(layout.folder)
            #expect(results.map(\.file) == ["issues", "users.get.json"])
            guard case let .failure(error) = results[0].result else {
                Issue.record("the link was checked as a template")
                return
            }
            #expect(error.description.contains("symbolic link"))
            #expect(throws: TemplaterError.self) {
                try ArchivePacker().pack(folder: layout.folder, to: work.appendingPathComponent("a.zip"))
            }
            #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("a.zip").path))
        }
    }
}
