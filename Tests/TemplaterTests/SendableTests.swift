import Foundation
import Templater
import Testing
import Validator

/// The public API used from `@Sendable` contexts and tasks: keeps it honest under Swift 6.
struct SendableTests {
    @Test func storeAndErrorsCrossTaskBoundaries() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("templater-sendable-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = TemplateStore(directory: folder, limits: ArchiveLimits(maxEntryCount: 100))
        try store.write(.object(["response": .int(1)]), for: "a.get")
        let results = await withTaskGroup(of: Result<JSONValue?, TemplaterError>.self) { group in
            for _ in 0..<4 {
                group.addTask { @Sendable in
                    Result { () throws(TemplaterError) in try store.template(for: "a.get") }
                }
            }
            group.addTask { @Sendable in
                Result { () throws(TemplaterError) in try store.template(for: "../a") }
            }
            var all: [Result<JSONValue?, TemplaterError>] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.filter { (try? $0.get()) == .object(["response": .int(1)]) }.count == 4)
        #expect(results.contains { if case .failure(.invalidName) = $0 { return true } else { return false } })
        let sendables: [any Sendable] = [
            store, ArchiveLimits.default, try TemplateName("x.get"), ArchivePacker(),
            TemplaterError.invalidName(name: "", reason: ""), Templater.pathToTemplateDirectory,
        ]
        #expect(sendables.count == 6)
    }
}
