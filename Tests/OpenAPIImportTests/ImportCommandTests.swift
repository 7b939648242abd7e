import Foundation
import OpenAPIImport
import TestSupport
import Testing
import Validator

/// `apilayer templates import`, run as a child process: exit codes, the written files, the
/// report, and that the templates pass `templates check` and pack into an archive.
@Suite(.timeLimit(.minutes(2)))
struct ImportCommandTests {
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
        try await APILayerExecutable.run(arguments)
    }

    @Test func everyOperationWrittenExitsZeroAndTheTemplatesCheckAndPack() async throws {
        let folder = try Fixtures.folder("import-ok")
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("templates")
        let spec = try Fixtures.url("inventory.yaml").path
        let result = try await Self.run(
            ["templates", "import", spec, "--out", out.path, "--operation", "getItem", "--operation", "listItems"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("wrote getItem.json"))
        #expect(result.output.contains("2 templates written, 0 operations skipped"))
        let written = try JSONValue(parsing: Data(contentsOf: out.appendingPathComponent("getItem.json")))
        #expect(Validator.checkTemplate(written).isEmpty)

        let check = try await Self.run(["templates", "check", out.path])
        #expect(check.status == 0, "\(check.output) \(check.error)")
        #expect(check.output.contains("ok   getItem.json"))
        let archive = folder.appendingPathComponent("inventory.zip")
        let pack = try await Self.run(["templates", "pack", out.path, "--out", archive.path])
        #expect(pack.status == 0, "\(pack.error)")
        #expect(pack.output.contains("packed 2 templates"))
    }

    @Test func skippedOperationsExitOneAndTheJSONReportListsThem() async throws {
        let folder = try Fixtures.folder("import-skip")
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("templates")
        let result = try await Self.run(["templates", "import", try Fixtures.url("legacy.json").path, "--out", out.path, "--json"])
        #expect(result.status == 1, "\(result.error)")
        let report = try JSONValue(parsing: Data(result.output.utf8))
        guard case let .object(fields) = report, case let .array(operations)? = fields["operations"] else {
            Issue.record("not a report: \(result.output)")
            return
        }
        #expect(fields["written"] == .int(3))
        #expect(fields["skipped"] == .int(1))
        #expect(fields["seconds"]?.type == .number)
        let skipped = operations.filter { $0.objectFields?["written"] == .bool(false) }
        #expect(skipped.compactMap { $0.objectFields?["name"] } == [.string("broken")])
        // A name with a slash is a subfolder, as template names are.
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("accounts/get.json").path))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("post-accounts.json").path))
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("broken.json").path))
    }

    @Test func nullableRulesPassTemplatesCheckAndTheirMisuseIsReported() async throws {
        let folder = try Fixtures.folder("import-nullable")
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("templates")
        let result = try await Self.run(["templates", "import", try Fixtures.url("issues.yaml").path, "--out", out.path])
        #expect(result.status == 0, "\(result.output) \(result.error)")
        let written = try JSONValue(parsing: Data(contentsOf: out.appendingPathComponent("issues/get.json")))
        #expect(JSONPointer("/assignee-Rules/isNullable")?.resolve(in: written) == .bool(true))
        #expect(JSONPointer("/assignees-Rules/elementsMayBeNull")?.resolve(in: written) == .bool(true))
        let check = try await Self.run(["templates", "check", out.path])
        #expect(check.status == 0, "\(check.output) \(check.error)")
        #expect(check.output.contains("ok   issues/get.json"))

        let misuse = #"{"a": 1, "a-Rules": {"isNullable": "yes"}, "s": "x", "s-Rules": {"elementsMayBeNull": true}}"#
        try Data(misuse.utf8).write(to: out.appendingPathComponent("misuse.json"))
        let refused = try await Self.run(["templates", "check", out.path])
        #expect(refused.status == 1)
        #expect(refused.error.contains("FAIL misuse.json"), "\(refused.error)")
        #expect(refused.error.contains("/a-Rules/isNullable"))
        #expect(refused.error.contains("/s-Rules/elementsMayBeNull"))
    }

    @Test func anUnreadableDescriptionExitsTwo() async throws {
        let url = try Fixtures.file("notes.json", #"{"notes": []}"#)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let out = url.deletingLastPathComponent().appendingPathComponent("out")
        let result = try await Self.run(["templates", "import", url.path, "--out", out.path])
        #expect(result.status == 2)
        #expect(result.error.contains("is not an OpenAPI 3.0 or 3.1 description"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let tooLarge = try await Self.run(["templates", "import", url.path, "--out", out.path, "--max-bytes", "4"])
        #expect(tooLarge.status == 2)
        #expect(tooLarge.error.contains("more than the 4 this import reads"))
    }

    @Test func swiftWritesTheRecipesMethodEnum() async throws {
        let folder = try Fixtures.folder("import-swift")
        defer { try? FileManager.default.removeItem(at: folder) }
        let swift = folder.appendingPathComponent("InventoryAPI.swift")
        let result = try await Self.run(
            ["templates", "import", try Fixtures.url("inventory.yaml").path, "--out", folder.appendingPathComponent("t").path, "--swift", swift.path])
        #expect(result.status == 1, "deleteItem has no JSON body: \(result.output)")
        let source = try String(contentsOf: swift, encoding: .utf8)
        // The committed golden file is this output, compiled into this test target.
        #expect(source == (try GoldenRecipe.text()))
    }
}
