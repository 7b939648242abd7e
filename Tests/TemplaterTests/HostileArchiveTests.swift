import Foundation
import TestSupport
import Testing
import Validator

@testable import Templater

/// Hostile archives, crafted at test time: each is refused, nothing appears outside the target,
/// and the templates already there are intact.
@Suite(.requires(.zip, .python3))
struct HostileArchiveTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var label: String
        /// Makes the archive at the URL; the second URL is a path outside the work folder the archive aims at.
        var make: @Sendable (URL, URL) async throws -> Void
        var limits = ArchiveLimits.default
        /// A fragment the refusal's reason must contain.
        var reason: String
        var testDescription: String { label }
    }

    static let cases: [Case] = [
        Case(label: "'..' entry", make: { archive, _ in try await ArchiveTools.fixture("dotdot", at: archive) }, reason: "'..'"),
        Case(label: "'..' inside a folder", make: { archive, _ in try await ArchiveTools.fixture("nested-dotdot", at: archive) }, reason: "'..'"),
        Case(
            label: "'..' deep inside nested folders", make: { archive, _ in try await ArchiveTools.fixture("deep-dotdot", at: archive) },
            reason: "'..'"),
        Case(
            label: "'.' segment in a nested path", make: { archive, _ in try await ArchiveTools.fixture("dot-segment", at: archive) }, reason: "'.'"),
        Case(
            label: "empty segment in a nested path", make: { archive, _ in try await ArchiveTools.fixture("empty-segment", at: archive) },
            reason: "empty"),
        Case(label: "absolute nested path", make: { try await ArchiveTools.fixture("nested-absolute", at: $0, [$1.path]) }, reason: "absolute"),
        Case(
            label: "symbolic link as a folder, then a file inside it",
            make: {
                try await ArchiveTools.fixture("symlinked-folder", at: $0, [$1.deletingLastPathComponent().path])
            }, reason: "symbolic link"),
        Case(
            label: "duplicate nested names", make: { archive, _ in try await ArchiveTools.fixture("nested-duplicate", at: archive) },
            reason: "duplicate"),
        Case(
            label: "a file and a folder of the same name", make: { archive, _ in try await ArchiveTools.fixture("file-and-folder", at: archive) },
            reason: "both a file and a folder"),
        Case(label: "absolute path", make: { try await ArchiveTools.fixture("absolute", at: $0, [$1.path]) }, reason: "absolute"),
        Case(label: "backslash path", make: { archive, _ in try await ArchiveTools.fixture("backslash", at: archive) }, reason: "backslash"),
        Case(label: "symbolic link", make: { archive, _ in try await ArchiveTools.fixture("symlink", at: archive) }, reason: "symbolic link"),
        Case(label: "duplicate names", make: { archive, _ in try await ArchiveTools.fixture("duplicate", at: archive) }, reason: "duplicate"),
        Case(
            label: "too many entries", make: { archive, _ in try await ArchiveTools.fixture("many", at: archive, ["6"]) },
            limits: ArchiveLimits(maxEntryCount: 5), reason: "more than 5 entries"),
        Case(
            label: "declared total above the limit", make: { archive, _ in try await ArchiveTools.fixture("large", at: archive, ["5000"]) },
            limits: ArchiveLimits(maxTotalUncompressedSize: 4096), reason: "declared total"),
        Case(label: "zip bomb (50 MiB of zeros)", make: { archive, _ in try await ArchiveTools.fixture("bomb", at: archive) }, reason: "ratio"),
        Case(
            label: "bomb with a lying size header", make: { archive, _ in try await ArchiveTools.fixture("lying-bomb", at: archive) },
            reason: "beyond its declared size"),
        Case(
            label: "stored entry with a lying size header", make: { archive, _ in try await ArchiveTools.fixture("lying-stored", at: archive) },
            reason: "CRC"),
        Case(
            label: "compressed size beyond the end of the archive",
            make: { archive, _ in
                try await ArchiveTools.fixture("lying-compressed", at: archive)
            }, reason: "past the end of the archive"),
        Case(
            label: "encrypted entry (zip -P)",
            make: { archive, _ in
                let folder = archive.deletingLastPathComponent().appendingPathComponent("plain")
                try writeFile(#"{"response": 1}"#, to: folder.appendingPathComponent("secret.get.json"))
                try await ArchiveTools.run("zip", ["-q", "-P", "password", archive.path, "secret.get.json"], in: folder)
            }, reason: "encrypted"),
        Case(
            label: "encrypted entry after a plain one",
            make: { archive, _ in
                let folder = archive.deletingLastPathComponent().appendingPathComponent("plain")
                try writeFile(#"{"response": 1}"#, to: folder.appendingPathComponent("open.get.json"))
                try writeFile(#"{"response": 2}"#, to: folder.appendingPathComponent("secret.get.json"))
                try await ArchiveTools.run("zip", ["-q", archive.path, "open.get.json"], in: folder)
                try await ArchiveTools.run("zip", ["-q", "-P", "password", archive.path, "secret.get.json"], in: folder)
            }, reason: "encrypted"),
    ]

    @Test(arguments: cases)
    func hostileArchiveIsRefused(_ hostile: Case) async throws {
        try await withTemporaryFolderAsync { work in
            let outside = FileManager.default.temporaryDirectory.appendingPathComponent("templater-escape-\(UUID().uuidString).json")
            let archive = work.appendingPathComponent("inputs/hostile.zip")
            try FileManager.default.createDirectory(at: archive.deletingLastPathComponent(), withIntermediateDirectories: true)
            try await hostile.make(archive, outside)

            let parent = work.appendingPathComponent("data")
            let target = parent.appendingPathComponent("templates")
            let store = TemplateStore(directory: target, limits: hostile.limits)
            try store.write(sampleTemplate(1), for: "users.get")
            let before = snapshot(work.appendingPathComponent("data"))

            do {
                _ = try store.unarchiveDefaultTemplates(from: archive)
                Issue.record("hostile archive accepted")
            } catch let error as TemplaterError {
                guard case let .archiveRefused(_, _, reason) = error else {
                    Issue.record("expected a refusal, got \(error)")
                    return
                }
                #expect(reason.contains(hostile.reason), "reason: \(reason)")
                #expect(!error.description.contains("\n"))
            } catch {
                Issue.record("unexpected error \(error)")
            }
            #expect(snapshot(parent) == before)
            #expect(listing(parent) == ["templates"])
            #expect(!FileManager.default.fileExists(atPath: outside.path))
            #expect(!FileManager.default.fileExists(atPath: outside.deletingLastPathComponent().appendingPathComponent("escaped.json").path))
            #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("escaped.json").path))
            #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("inputs/escaped.json").path))
            #expect(try store.template(for: "users.get") == sampleTemplate(1))
        }
    }
}
