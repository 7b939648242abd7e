import Foundation
import TestSupport
import Testing

/// `apilayer templates …` with template names that have folders (`issues/list-for-repo`).
@Suite(.timeLimit(.minutes(1)))
struct TemplatesCommandTests {
    static func folderWithNestedTemplates() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-templates-\(UUID().uuidString)")
        let files = [
            "issues/list-for-repo.json": #"{"response": [{"id": 1, "id-Rules": {"minimum": 1}}]}"#,
            "repos/issues/comments/list.json": #"{"response": {"n": 2}}"#,
            "users.get.json": #"{"response": 3}"#,
        ]
        for (path, text) in files {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return folder
    }

    @Test func listShowCheckPackAndUnpackNestedNames() async throws {
        let folder = try Self.folderWithNestedTemplates()
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = try await APILayerExecutable.run(["templates", "list", "--dir", folder.path])
        #expect(list.status == 0)
        #expect(list.output == "issues/list-for-repo\nrepos/issues/comments/list\nusers.get\n")

        let show = try await APILayerExecutable.run(["templates", "show", "repos/issues/comments/list", "--dir", folder.path])
        #expect(show.status == 0)
        #expect(show.output.contains("\"n\""))

        let check = try await APILayerExecutable.run(["templates", "check", folder.path])
        #expect(check.status == 0)
        #expect(check.output.contains("ok   issues/list-for-repo.json"))

        let archive = folder.appendingPathComponent("out.zip")
        let pack = try await APILayerExecutable.run(["templates", "pack", folder.path, "--out", archive.path])
        #expect(pack.status == 0, "\(pack.error)")
        #expect(pack.output.contains("packed 3 templates"))

        let target = folder.appendingPathComponent("unpacked")
        let unpack = try await APILayerExecutable.run(["templates", "unpack", archive.path, "--to", target.path])
        #expect(unpack.status == 0, "\(unpack.error)")
        #expect(FileManager.default.fileExists(atPath: target.appendingPathComponent("repos/issues/comments/list.json").path))
        let relist = try await APILayerExecutable.run(["templates", "list", "--dir", target.path])
        #expect(relist.output == list.output)
    }

    @Test(arguments: ["a//b", "../users.get", "issues/../../etc/passwd", "/etc/passwd", "issues/"])
    func showRefusesNamesThatLeaveTheFolder(_ name: String) async throws {
        let folder = try Self.folderWithNestedTemplates()
        defer { try? FileManager.default.removeItem(at: folder) }
        let show = try await APILayerExecutable.run(["templates", "show", name, "--dir", folder.path])
        #expect(show.status == 2)
        #expect(show.error.contains("invalid template name"))
        #expect(show.output.isEmpty)
    }
}
