import Foundation
import Testing
import Validator

@testable import Templater

/// The template folder moved with `setNewPathToTemplateDirectory(_:)` is found again by the
/// next store made on the original folder, as a restarted service makes it.
struct TemplateFolderRecordTests {
    @Test func aStoreMadeLaterOnTheOriginalFolderUsesTheMovedOne() throws {
        try withTemporaryFolder { work in
            let home = work.appendingPathComponent("templates")
            let first = TemplateStore(directory: home)
            try first.write(sampleTemplate(1), for: "a.get")
            let moved = work.appendingPathComponent("elsewhere/templates")
            try first.setNewPathToTemplateDirectory(moved)
            let record = work.appendingPathComponent(".templates.location")
            #expect(try String(contentsOf: record, encoding: .utf8) == moved.standardizedFileURL.path + "\n")

            let restarted = TemplateStore(directory: home)
            #expect(restarted.directory.path == moved.standardizedFileURL.path)
            #expect(try restarted.template(for: "a.get") == sampleTemplate(1))

            // Moved again by the restarted store: the record follows.
            let third = work.appendingPathComponent("third")
            try restarted.setNewPathToTemplateDirectory(third)
            #expect(TemplateStore(directory: home).directory.path == third.standardizedFileURL.path)

            // Moved back home: the record goes.
            try TemplateStore(directory: home).setNewPathToTemplateDirectory(home)
            #expect(!FileManager.default.fileExists(atPath: record.path))
            let atHome = TemplateStore(directory: home)
            #expect(atHome.directory.path == home.standardizedFileURL.path)
            #expect(try atHome.template(for: "a.get") == sampleTemplate(1))
        }
    }

    /// A record naming a folder that is gone, a relative path, or bytes that are no path: the
    /// store uses the folder it was made on.
    @Test(arguments: ["/no/such/folder/anywhere\n", "relative/path\n", "\u{0}\u{1}garbage", ""])
    func aRecordThatNamesNoFolderIsIgnored(content: String) throws {
        try withTemporaryFolder { work in
            let home = work.appendingPathComponent("templates")
            try Data(content.utf8).write(to: work.appendingPathComponent(".templates.location"))
            let store = TemplateStore(directory: home)
            #expect(store.directory.path == home.standardizedFileURL.path)
            try store.write(sampleTemplate(2), for: "b.get")
            #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("b.get.json").path))
        }
    }
}
