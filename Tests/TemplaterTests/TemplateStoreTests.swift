import Foundation
import Testing
import Validator

@testable import Templater

struct TemplateStoreTests {
    enum SampleMethod: String { case usersGet = "users.get" }

    @Test func writeThenReadFromMemoryAndDisk() throws {
        try withTemporaryFolder { folder in
            let store = TemplateStore(directory: folder.appendingPathComponent("templates"))
            #expect(try store.template(for: "users.get") == nil)
            try store.write(sampleTemplate(1), for: "users.get")
            #expect(try store.template(for: SampleMethod.usersGet) == sampleTemplate(1))
            let onDisk = try Data(contentsOf: folder.appendingPathComponent("templates/users.get.json"))
            #expect(try JSONValue(parsing: onDisk) == sampleTemplate(1))
            // A second store on the same folder reads the disk, then caches.
            let other = TemplateStore(directory: folder.appendingPathComponent("templates"))
            #expect(!other.isCached(try TemplateName("users.get")))
            #expect(try other.template(for: "users.get") == sampleTemplate(1))
            #expect(other.isCached(try TemplateName("users.get")))
        }
    }

    @Test func cachedTemplateIsServedFromMemory() throws {
        try withTemporaryFolder { folder in
            let store = TemplateStore(directory: folder)
            try writeFile(#"{"response": 1}"#, to: folder.appendingPathComponent("a.get.json"))
            #expect(try store.template(for: "a.get") == .object(["response": .int(1)]))
            try writeFile(#"{"response": 2}"#, to: folder.appendingPathComponent("a.get.json"))
            #expect(try store.template(for: "a.get") == .object(["response": .int(1)]))
            store.purgeCache()
            #expect(try store.template(for: "a.get") == .object(["response": .int(2)]))
        }
    }

    struct BrokenCase: Sendable, CustomTestStringConvertible {
        var label: String
        var text: String
        var expectRules: Bool
        var testDescription: String { label }
    }

    static let brokenFiles: [BrokenCase] = [
        BrokenCase(label: "truncated JSON", text: #"{"response": "#, expectRules: false),
        BrokenCase(label: "not JSON", text: "hello", expectRules: false),
        BrokenCase(label: "misspelled rule", text: #"{"a": 1, "a-Rules": {"minimun": 1}}"#, expectRules: true),
        BrokenCase(label: "rules without a key", text: #"{"b-Rules": {"isOptional": true}}"#, expectRules: true),
    ]

    @Test(arguments: brokenFiles)
    func brokenFileIsReportedByName(_ broken: BrokenCase) throws {
        try withTemporaryFolder { folder in
            try writeFile(broken.text, to: folder.appendingPathComponent("bad.get.json"))
            let store = TemplateStore(directory: folder)
            do {
                _ = try store.template(for: "bad.get")
                Issue.record("a broken template was accepted")
            } catch let error as TemplaterError {
                switch error {
                case let .invalidRules(name, _, _):
                    #expect(broken.expectRules)
                    #expect(name == "bad.get")
                case let .invalidJSON(name, _, _):
                    #expect(!broken.expectRules)
                    #expect(name == "bad.get")
                default: Issue.record("unexpected error \(error)")
                }
                #expect(!error.description.contains("\n"))
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }

    @Test func writeRefusesInvalidRules() throws {
        try withTemporaryFolder { folder in
            let store = TemplateStore(directory: folder)
            let bad: JSONValue = .object(["a": .int(1), "a-Rules": .object(["minimum": .string("one")])])
            #expect(throws: TemplaterError.self) { try store.write(bad, for: "bad.get") }
            #expect(listing(folder).isEmpty)
        }
    }

    @Test func recordModeCapturesALiveResponse() throws {
        try withTemporaryFolder { folder in
            let store = TemplateStore(directory: folder)
            let body = Data(#"{"response":{"post_id":42}}"#.utf8)
            let recorded = try store.record(responseBody: body, for: "wall.post")
            #expect(recorded == .object(["response": .object(["post_id": .int(42)])]))
            store.purgeCache()
            #expect(try store.template(for: "wall.post") == recorded)
            #expect(throws: TemplaterError.self) { try store.record(responseBody: Data("<html>".utf8), for: "wall.get") }
        }
    }

    @Test func removeAndRemoveAll() throws {
        try withTemporaryFolder { folder in
            let templates = folder.appendingPathComponent("templates")
            let store = TemplateStore(directory: templates)
            try store.write(sampleTemplate(1), for: "a.get")
            try store.write(sampleTemplate(2), for: "b.get")
            try store.remove(for: "a.get")
            try store.remove(for: "a.get")  // no template: not an error
            #expect(try store.template(for: "a.get") == nil)
            #expect(try store.templateNames().map(\.rawValue) == ["b.get"])
            try store.removeAll()
            #expect(try store.template(for: "b.get") == nil)
            #expect(listing(folder).isEmpty)
            try store.removeAll()
        }
    }

    @Test func bundleFolderIsReadInstead() throws {
        try withTemporaryFolder { folder in
            let bundle = folder.appendingPathComponent("bundle")
            try writeFile(#"{"response": "shipped"}"#, to: bundle.appendingPathComponent("users.get.json"))
            let store = TemplateStore(directory: folder.appendingPathComponent("templates"))
            try store.write(.object(["response": .string("written")]), for: "users.get")
            store.loadTemplateFromBundle = bundle
            #expect(try store.template(for: "users.get") == .object(["response": .string("shipped")]))
            store.loadTemplateFromBundle = nil
            #expect(try store.template(for: "users.get") == .object(["response": .string("written")]))
        }
    }

    @Test func defaultFolderFollowsTheEnvironment() {
        let explicit = Templater.defaultTemplateDirectory(environment: ["APILAYER_TEMPLATES_DIR": "/srv/t", "HOME": "/home/u"])
        #expect(explicit.path == "/srv/t")
        let xdg = Templater.defaultTemplateDirectory(environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/u"])
        #expect(xdg.path == "/data/apilayer/templates")
        let home = Templater.defaultTemplateDirectory(environment: ["HOME": "/home/u"])
        #expect(home.path == "/home/u/.local/share/apilayer/templates")
    }
}
