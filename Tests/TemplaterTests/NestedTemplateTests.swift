import Foundation
import Testing
import Validator

@testable import Templater

/// Names with `/`: templates in subfolders of the template folder.
struct NestedTemplateTests {
    @Test func writeReadListAndRemoveInSubfolders() throws {
        try withTemporaryFolder { work in
            let folder = work.appendingPathComponent("templates")
            let store = TemplateStore(directory: folder)
            try store.write(sampleTemplate(1), for: "issues/list-for-repo")
            try store.write(sampleTemplate(2), for: "issues/get")
            try store.write(sampleTemplate(3), for: "repos/issues/comments/list")
            try store.write(sampleTemplate(4), for: "users.get")
            #expect(listing(folder.appendingPathComponent("issues")) == ["get.json", "list-for-repo.json"])
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("repos/issues/comments/list.json").path))

            let other = TemplateStore(directory: folder)
            #expect(try other.template(for: "issues/list-for-repo") == sampleTemplate(1))
            #expect(try other.template(for: "repos/issues/comments/list") == sampleTemplate(3))
            #expect(try other.template(for: "issues/missing") == nil)
            #expect(try other.template(for: "nowhere/missing") == nil)
            #expect(
                try other.templateNames().map(\.rawValue)
                    == ["issues/get", "issues/list-for-repo", "repos/issues/comments/list", "users.get"])

            try store.remove(for: "issues/get")
            #expect(listing(folder.appendingPathComponent("issues")) == ["list-for-repo.json"])
            try store.remove(for: "issues/list-for-repo")
            try store.remove(for: "repos/issues/comments/list")
            try store.remove(for: "repos/issues/comments/list")  // no template: not an error
            try store.remove(for: "never/was/here")
            // The folders the removals left empty went with them; the template folder stays.
            #expect(listing(folder) == ["users.get.json"])
            #expect(try store.templateNames().map(\.rawValue) == ["users.get"])
        }
    }

    @Test func removeKeepsFoldersThatStillHoldSomething() throws {
        try withTemporaryFolder { work in
            let store = TemplateStore(directory: work)
            try store.write(sampleTemplate(1), for: "a/b/c")
            try writeFile("notes", to: work.appendingPathComponent("a/notes.txt"))
            try store.remove(for: "a/b/c")
            #expect(listing(work) == ["a"])
            #expect(listing(work.appendingPathComponent("a")) == ["notes.txt"])
        }
    }

    @Test func foldersNobodyEmptiedStay() throws {
        try withTemporaryFolder { work in
            let store = TemplateStore(directory: work)
            try FileManager.default.createDirectory(at: work.appendingPathComponent("empty/inner"), withIntermediateDirectories: true)
            // Removing a template that is not there leaves empty folders alone.
            try store.remove(for: "empty/inner/none")
            #expect(listing(work.appendingPathComponent("empty")) == ["inner"])
            // A write that fails (a file where a folder of the name should be) removes only
            // folders it made itself: none here.
            try writeFile("x", to: work.appendingPathComponent("empty/inner/file"))
            #expect(throws: TemplaterError.self) { try store.write(sampleTemplate(1), for: "empty/inner/file/name") }
            #expect(listing(work.appendingPathComponent("empty/inner")) == ["file"])
            #expect(try store.template(for: "empty/inner/file/name") == nil)
        }
    }

    @Test func listingSkipsHiddenAndInvalidFiles() throws {
        try withTemporaryFolder { work in
            try writeFile(#"{"response": 1}"#, to: work.appendingPathComponent("a/ok.json"))
            try writeFile(#"{"response": 1}"#, to: work.appendingPathComponent(".hidden/x.json"))
            try writeFile(#"{"response": 1}"#, to: work.appendingPathComponent("a/.x.json"))
            try writeFile(#"{"response": 1}"#, to: work.appendingPathComponent("a/b..c/x.json"))
            try writeFile("text", to: work.appendingPathComponent("a/readme.txt"))
            let store = TemplateStore(directory: work)
            #expect(try store.templateNames().map(\.rawValue) == ["a/ok"])
        }
    }

    @Test func cacheAndGenerationWithNestedNames() throws {
        try withTemporaryFolder { work in
            let store = TemplateStore(directory: work)
            let name = try TemplateName("issues/list")
            try writeFile(#"{"response": 1}"#, to: work.appendingPathComponent("issues/list.json"))
            #expect(try store.template(for: name) == .object(["response": .int(1)]))
            #expect(store.isCached(name))
            // Edited by hand: memory still answers until the cache is purged.
            try writeFile(#"{"response": 2}"#, to: work.appendingPathComponent("issues/list.json"))
            #expect(try store.template(for: name) == .object(["response": .int(1)]))
            store.purgeCache()
            #expect(!store.isCached(name))
            #expect(try store.template(for: name) == .object(["response": .int(2)]))
            // A write of the nested name updates memory; a write of another name leaves it cached.
            try store.write(sampleTemplate(5), for: "issues/list")
            #expect(store.isCached(name))
            #expect(try store.template(for: name) == sampleTemplate(5))
            try store.write(sampleTemplate(6), for: "issues/other")
            #expect(store.isCached(name))
            // The same leaf in another folder is another template.
            #expect(try store.template(for: "pulls/list") == nil)
            try store.remove(for: "issues/list")
            #expect(!store.isCached(name))
            #expect(try store.template(for: name) == nil)
        }
    }

    @Test func readsRacingWritesOfNestedNamesNeverGoBack() throws {
        try withTemporaryFolder { work in
            let store = TemplateStore(directory: work)
            try store.write(sampleTemplate(0), for: "deep/er/name")
            let failures = Shared<[String]>([])
            var bodies: [@Sendable () -> Void] = [
                {
                    for version in 1...100 { try? store.write(sampleTemplate(version), for: "deep/er/name") }
                }
            ]
            for reader in 0..<3 {
                bodies.append {
                    var last = -1
                    for round in 0..<300 {
                        if round % 50 == 0 { store.purgeCache() }
                        guard let version = ConcurrencyTests.version(of: try? store.template(for: "deep/er/name")) else {
                            failures.withLock { $0.append("reader \(reader): no template") }
                            return
                        }
                        if version < last { failures.withLock { $0.append("reader \(reader): went back from \(last) to \(version)") } }
                        last = version
                    }
                }
            }
            runOnThreads(bodies)
            #expect(failures.withLock { $0 }.isEmpty)
            #expect(try store.template(for: "deep/er/name") == sampleTemplate(100))
        }
    }

    @Test func removeAllTakesSubfolders() throws {
        try withTemporaryFolder { work in
            let folder = work.appendingPathComponent("templates")
            let store = TemplateStore(directory: folder)
            try store.write(sampleTemplate(1), for: "a/b")
            _ = try store.template(for: "a/b")
            try store.removeAll()
            #expect(!store.isCached(try TemplateName("a/b")))
            #expect(try store.template(for: "a/b") == nil)
            #expect(listing(work).isEmpty)
        }
    }

    @Test(arguments: [false, true])
    func moveCarriesSubfolders(forceCopy: Bool) throws {
        try withTemporaryFolder { work in
            let store = TemplateStore(
                directory: work.appendingPathComponent("old"), limits: .default,
                mover: DirectoryMover(forceCopy: forceCopy))
            try store.write(sampleTemplate(1), for: "issues/list")
            try store.write(sampleTemplate(2), for: "repos/issues/comments/get")
            _ = try store.template(for: "issues/list")
            let destination = work.appendingPathComponent("new")
            try store.setNewPathToTemplateDirectory(destination)
            #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("old").path))
            #expect(store.isCached(try TemplateName("issues/list")))
            #expect(try store.templateNames().map(\.rawValue) == ["issues/list", "repos/issues/comments/get"])
            store.purgeCache()
            #expect(try store.template(for: "repos/issues/comments/get") == sampleTemplate(2))
            try store.write(sampleTemplate(3), for: "issues/new")
            #expect(FileManager.default.fileExists(atPath: destination.appendingPathComponent("issues/new.json").path))
        }
    }

    @Test func copyVerificationComparesNestedFiles() throws {
        try withTemporaryFolder { work in
            let source = work.appendingPathComponent("source")
            try writeFile("one", to: source.appendingPathComponent("a/b/c.json"))
            try writeFile("two", to: source.appendingPathComponent(".hidden"))
            let copy = work.appendingPathComponent("copy")
            try FileManager.default.copyItem(at: source, to: copy)
            try DirectoryMover.verifyCopy(of: source, at: copy)
            try writeFile("ONE", to: copy.appendingPathComponent("a/b/c.json"))
            #expect(throws: (any Error).self) { try DirectoryMover.verifyCopy(of: source, at: copy) }
            try writeFile("one", to: copy.appendingPathComponent("a/b/c.json"))
            try FileManager.default.removeItem(at: copy.appendingPathComponent(".hidden"))
            #expect(throws: (any Error).self) { try DirectoryMover.verifyCopy(of: source, at: copy) }
        }
    }
}
