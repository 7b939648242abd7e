import Foundation
import Testing
import Validator

@testable import Templater

struct DirectoryMoverTests {
    static func device(of url: URL) -> UInt64? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.systemNumber].flatMap { ($0 as? NSNumber)?.uint64Value }
    }

    @Test(arguments: [false, true])
    func moveKeepsFilesAndCache(forceCopy: Bool) throws {
        try withTemporaryFolder { work in
            let store = TemplateStore(
                directory: work.appendingPathComponent("old"), limits: .default,
                mover: DirectoryMover(forceCopy: forceCopy))
            try store.write(sampleTemplate(1), for: "a.get")
            try writeFile("notes", to: work.appendingPathComponent("old/sub/notes.txt"))
            _ = try store.template(for: "a.get")
            let destination = work.appendingPathComponent("deep/new")
            try store.setNewPathToTemplateDirectory(destination)
            #expect(store.directory.path == destination.path)
            #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("old").path))
            #expect(try String(contentsOf: destination.appendingPathComponent("sub/notes.txt"), encoding: .utf8) == "notes")
            #expect(store.isCached(try TemplateName("a.get")))
            #expect(try store.template(for: "a.get") == sampleTemplate(1))
            try store.write(sampleTemplate(2), for: "b.get")
            #expect(FileManager.default.fileExists(atPath: destination.appendingPathComponent("b.get.json").path))
            #expect(listing(work.appendingPathComponent("deep")) == ["new"])
        }
    }

    @Test func moveAcrossFileSystems() throws {
        let shm = URL(fileURLWithPath: "/dev/shm")
        let tmp = FileManager.default.temporaryDirectory
        guard FileManager.default.isWritableFile(atPath: shm.path), Self.device(of: shm) != Self.device(of: tmp) else {
            return  // no second file system here; the forced-copy cases above cover the same code
        }
        try withTemporaryFolder { work in
            let store = TemplateStore(directory: work.appendingPathComponent("old"))
            try store.write(sampleTemplate(3), for: "a.get")
            let destination = shm.appendingPathComponent("templater-tests-\(UUID().uuidString)/templates")
            defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
            try store.setNewPathToTemplateDirectory(destination)
            #expect(listing(destination) == ["a.get.json"])
            #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("old").path))
            store.purgeCache()
            #expect(try store.template(for: "a.get") == sampleTemplate(3))
            // And back.
            try store.setNewPathToTemplateDirectory(work.appendingPathComponent("back"))
            #expect(listing(work.appendingPathComponent("back")) == ["a.get.json"])
        }
    }

    struct RefusalCase: Sendable, CustomTestStringConvertible {
        var label: String
        var destination: String
        var prepare: @Sendable (URL) throws -> Void
        var testDescription: String { label }
    }

    static let refusals: [RefusalCase] = [
        RefusalCase(label: "non-empty destination", destination: "busy") {
            try writeFile("x", to: $0.appendingPathComponent("busy/file"))
        },
        RefusalCase(label: "destination is a file", destination: "afile") {
            try writeFile("x", to: $0.appendingPathComponent("afile"))
        },
        RefusalCase(label: "destination inside the source", destination: "old/inner") { _ in },
    ]

    @Test(arguments: refusals)
    func refusedMoveLeavesEverythingInPlace(_ refusal: RefusalCase) throws {
        try withTemporaryFolder { work in
            let old = work.appendingPathComponent("old")
            let store = TemplateStore(directory: old)
            try store.write(sampleTemplate(1), for: "a.get")
            try refusal.prepare(work)
            let before = snapshot(work)
            #expect(throws: TemplaterError.self) {
                try store.setNewPathToTemplateDirectory(work.appendingPathComponent(refusal.destination))
            }
            #expect(snapshot(work) == before)
            #expect(store.directory.path == old.path)
            #expect(try store.template(for: "a.get") == sampleTemplate(1))
        }
    }

    @Test func emptyDestinationFolderIsUsed() throws {
        try withTemporaryFolder { work in
            let store = TemplateStore(directory: work.appendingPathComponent("old"))
            try store.write(sampleTemplate(1), for: "a.get")
            try FileManager.default.createDirectory(at: work.appendingPathComponent("empty"), withIntermediateDirectories: true)
            try store.setNewPathToTemplateDirectory(work.appendingPathComponent("empty"))
            #expect(listing(work.appendingPathComponent("empty")) == ["a.get.json"])
        }
    }

    @Test func movingAFolderThatDoesNotExistYetJustSwitches() throws {
        try withTemporaryFolder { work in
            let store = TemplateStore(directory: work.appendingPathComponent("never-written"))
            try store.setNewPathToTemplateDirectory(work.appendingPathComponent("next"))
            try store.write(sampleTemplate(1), for: "a.get")
            #expect(listing(work.appendingPathComponent("next")) == ["a.get.json"])
        }
    }
}
