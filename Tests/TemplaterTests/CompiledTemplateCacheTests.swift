import Foundation
import Testing
import Validator

@testable import Templater

/// Templates are compiled once per version of the store, and a mutation makes the next call
/// compile the new version.
struct CompiledTemplateCacheTests {
    /// A response whose `response.version` is `value`.
    private func response(_ value: Int) -> JSONValue {
        .object(["response": .object(["version": .int(value)])])
    }

    /// A template that accepts only `response.version == value`.
    private func exactTemplate(_ value: Int) -> JSONValue {
        .object([
            "response": .object([
                "version": .int(value),
                "version-Rules": .object(["minimum": .int(value), "maximum": .int(value)]),
            ])
        ])
    }

    @Test func compiledOnceThenServedFromMemory() throws {
        try withTemporaryFolder { folder in
            let store = TemplateStore(directory: folder)
            let name = try TemplateName("a.get")
            #expect(try store.compiledTemplate(for: "a.get") == nil)
            try store.write(exactTemplate(1), for: "a.get")
            #expect(!store.isCompiled(name))
            let first = try #require(try store.compiledTemplate(for: "a.get"))
            #expect(store.isCompiled(name))
            let second = try #require(try store.compiledTemplate(for: name))
            #expect(first.json == second.json)
            #expect(Validator.validate(response(1), against: second).isEmpty)
        }
    }

    @Test func aWriteMakesTheNextCallUseTheNewTemplate() throws {
        try withTemporaryFolder { folder in
            let store = TemplateStore(directory: folder)
            let name = try TemplateName("a.get")
            try store.write(exactTemplate(1), for: "a.get")
            let old = try #require(try store.compiledTemplate(for: "a.get"))
            #expect(Validator.validate(response(1), against: old).isEmpty)
            try store.write(exactTemplate(2), for: "a.get")
            #expect(!store.isCompiled(name))
            let new = try #require(try store.compiledTemplate(for: "a.get"))
            #expect(Validator.validate(response(2), against: new).isEmpty)
            #expect(!Validator.validate(response(1), against: new).isEmpty)
            #expect(store.isCompiled(name))
        }
    }

    @Test func removalPurgeAndHandEditsFollowTheGeneration() throws {
        try withTemporaryFolder { folder in
            let store = TemplateStore(directory: folder)
            let file = folder.appendingPathComponent("a.get.json")
            try writeFile(exactTemplate(1).serialized(pretty: true).utf8String, to: file)
            #expect(try store.compiledTemplate(for: "a.get")?.json == exactTemplate(1))
            // A hand edit is not seen until the cache is purged, like the raw template.
            try writeFile(exactTemplate(3).serialized(pretty: true).utf8String, to: file)
            #expect(try store.compiledTemplate(for: "a.get")?.json == exactTemplate(1))
            store.purgeCache()
            #expect(try store.compiledTemplate(for: "a.get")?.json == exactTemplate(3))
            try store.remove(for: "a.get")
            #expect(try store.compiledTemplate(for: "a.get") == nil)
        }
    }

    @Test func aTemplateWithBadRulesIsReportedNotCached() throws {
        try withTemporaryFolder { folder in
            try writeFile(#"{"a": 1, "a-Rules": {"minimun": 1}}"#, to: folder.appendingPathComponent("bad.get.json"))
            let store = TemplateStore(directory: folder)
            #expect(throws: TemplaterError.self) { try store.compiledTemplate(for: "bad.get") }
            #expect(!store.isCompiled(try TemplateName("bad.get")))
        }
    }

    /// Readers racing a writer only ever get a version that was written, never a stale one
    /// after the write returned.
    @Test func concurrentReadersAndAWriter() throws {
        try withTemporaryFolder { folder in
            let store = TemplateStore(directory: folder)
            try store.write(exactTemplate(0), for: "a.get")
            let wrong = Shared(0)
            let readers: [@Sendable () -> Void] = (0..<4).map { _ in
                {
                    for _ in 0..<300 {
                        guard let template = try? store.compiledTemplate(for: "a.get"),
                            case let .object(root) = template.json, case let .object(inner)? = root["response"],
                            case let .int(version)? = inner["version"], (0...20).contains(version)
                        else {
                            wrong.withLock { $0 += 1 }
                            continue
                        }
                    }
                }
            }
            let writer: @Sendable () -> Void = {
                for version in 1...20 {
                    try? store.write(exactTemplate(version), for: "a.get")
                    // Once the write returned, every call answers this version or a newer one.
                    guard let seen = try? store.compiledTemplate(for: "a.get"), seen.json == exactTemplate(version) else {
                        wrong.withLock { $0 += 1 }
                        continue
                    }
                }
            }
            runOnThreads(readers + [writer])
            #expect(wrong.withLock { $0 } == 0)
        }
    }
}

extension Data {
    fileprivate var utf8String: String { String(decoding: self, as: UTF8.self) }
}
