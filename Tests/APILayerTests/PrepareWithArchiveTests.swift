import APILayer
import Foundation
import Templater
import TestSupport
import Testing

/// `APIManager.prepareBeforeUsing(…, unpacking:)`: the shipped archive is unpacked on the first
/// start only, and a refused archive leaves the API as it was.
@Suite(.requires(.zip))
struct PrepareWithArchiveTests {
    /// A folder holding `users.get.json` zipped by the real `zip` into `shipped.zip`.
    static func shippedArchive() async throws -> (work: URL, archive: URL) {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-prepare-\(UUID().uuidString)")
        let source = work.appendingPathComponent("source")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        try Data(#"{"response": [{"id": 1, "first_name": "Pavel"}]}"#.utf8).write(to: source.appendingPathComponent("users.get.json"))
        let archive = work.appendingPathComponent("shipped.zip")
        let zip = try await runChildProcess(URL(fileURLWithPath: "/usr/bin/env"), ["zip", "-q", "-r", archive.path, "."], in: source)
        try #require(zip.status == 0, "zip failed: \(zip.error)")
        return (work, archive)
    }

    @Test func theShippedArchiveIsUnpackedOnceAndTheAPIPrepared() async throws {
        let (work, archive) = try await Self.shippedArchive()
        defer { try? FileManager.default.removeItem(at: work) }
        let scope = APIScope(name: "prepare-with-archive")
        let base = try #require(URL(string: "http://127.0.0.1:1/method/"))
        let store = TemplateStore(directory: work.appendingPathComponent("templates"))
        let (first, second) = try APIManager.withDefaultAPI(scope) {
            let first = try APIManager.prepareBeforeUsing(baseURL: base, templates: store, unpacking: archive)
            let second = try APIManager.prepareBeforeUsing(baseURL: base, templates: store, unpacking: archive)
            return (first, second)
        }
        #expect(first.outcome == .unpacked)
        #expect(first.installed == ["users.get"])
        #expect(second.outcome == .alreadyUpToDate)
        #expect(scope.configuration.baseURL == base)
        #expect(scope.configuration.templates === store)
        #expect(try store.template(for: "users.get") != nil)
    }

    @Test func aRefusedArchiveLeavesTheAPIAsItWas() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-prepare-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let notAZip = work.appendingPathComponent("shipped.zip")
        try Data("this is not a zip archive".utf8).write(to: notAZip)
        let scope = APIScope(name: "prepare-refused")
        #expect(throws: TemplaterError.self) {
            try APIManager.withDefaultAPI(scope) {
                try APIManager.prepareBeforeUsing(
                    baseURL: URL(string: "http://127.0.0.1:1/")!,
                    templates: TemplateStore(directory: work.appendingPathComponent("t")),
                    unpacking: notAZip)
            }
        }
        #expect(scope.configuration.baseURL == nil)
    }
}
