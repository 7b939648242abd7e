import Testing

@testable import Templater

struct TemplateNameTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// A fragment of the refusal's reason; `nil` when the name is valid.
        var refusal: String?
        var testDescription: String { "\(refusal == nil ? "accepts" : "refuses") '\(name)'" }
    }

    static let cases: [Case] = [
        Case(name: "users.get"),
        Case(name: "photos.getWallUploadServer"),
        Case(name: "auth_logout-v2"),
        Case(name: "пользователи.get"),
        Case(name: "issues/list-for-repo"),
        Case(name: "repos/issues/comments/list"),
        Case(name: "пользователи/получить"),
        Case(name: "a.b/c.d"),
        Case(name: String(repeating: "a/", count: 99) + "a"),
        Case(name: String(repeating: "a", count: 200)),
        Case(name: "", refusal: "empty"),
        Case(name: "..", refusal: "'..' segment"),
        Case(name: ".", refusal: "'.' segment"),
        Case(name: "users..get", refusal: "'..'"),
        Case(name: "../users.get", refusal: "'..' segment"),
        Case(name: "a/../b", refusal: "'..' segment"),
        Case(name: "a/..", refusal: "'..' segment"),
        Case(name: "a/./b", refusal: "'.' segment"),
        Case(name: "a/.", refusal: "'.' segment"),
        Case(name: "a/b..c/d", refusal: "'..'"),
        Case(name: "/etc/passwd", refusal: "starts with '/'"),
        Case(name: "/", refusal: "starts with '/'"),
        Case(name: "issues/", refusal: "ends with '/'"),
        Case(name: "a//b", refusal: "empty segment"),
        Case(name: ".hidden", refusal: "starts with a dot"),
        Case(name: "a/.hidden", refusal: "segment of the name starts with a dot"),
        Case(name: ".git/config", refusal: "starts with a dot"),
        Case(name: "users\\get", refusal: "backslash"),
        Case(name: "a/b\\..\\c", refusal: "backslash"),
        Case(name: "a\u{0}b", refusal: "NUL"),
        Case(name: "a/\u{0}", refusal: "NUL"),
        Case(name: "line\nbreak", refusal: "control character"),
        Case(name: "a/b\u{7F}", refusal: "control character"),
        Case(name: String(repeating: "a", count: 201), refusal: "longer than 200 bytes"),
        Case(name: String(repeating: "ab/", count: 67), refusal: "longer than 200 bytes"),
        Case(name: String(repeating: "я", count: 101), refusal: "longer than 200 bytes"),
    ]

    @Test(arguments: cases)
    func validation(_ testCase: Case) throws {
        if let refusal = testCase.refusal {
            do {
                _ = try TemplateName(testCase.name)
                Issue.record("'\(testCase.name)' was accepted")
            } catch {
                guard case let .invalidName(name, reason) = error else {
                    Issue.record("expected invalidName, got \(error)")
                    return
                }
                #expect(name == testCase.name)
                #expect(reason.contains(refusal), "reason: \(reason)")
            }
            #expect(TemplateName(fileName: testCase.name + ".json") == nil)
        } else {
            let name = try TemplateName(testCase.name)
            #expect(name.fileName == testCase.name + ".json")
            #expect(TemplateName(fileName: name.fileName) == name)
            #expect((name.folderSegments + [name.leafFileName]).joined(separator: "/") == name.fileName)
        }
    }

    @Test func nestedNameSegments() throws {
        let name = try TemplateName("repos/issues/list")
        #expect(name.folderSegments == ["repos", "issues"])
        #expect(name.leafFileName == "list.json")
        let flat = try TemplateName("users.get")
        #expect(flat.folderSegments.isEmpty)
        #expect(flat.leafFileName == "users.get.json")
    }

    @Test func fileNamesThatAreNotTemplates() {
        for path in ["users.get", "issues/list.txt", "issues/.list.json", ".templater-archive.json", "a//b.json", "/a.json"] {
            #expect(TemplateName(fileName: path) == nil, "\(path)")
        }
    }

    @Test func storeRefusesBadNamesEverywhere() throws {
        try withTemporaryFolder { folder in
            let store = TemplateStore(directory: folder)
            for bad in ["../x", "a/../../x", "/tmp/x", "a//b", "a/", "..", "a/.hidden"] {
                #expect(throws: TemplaterError.self) { try store.template(for: bad) }
                #expect(throws: TemplaterError.self) { try store.write(sampleTemplate(1), for: bad) }
                #expect(throws: TemplaterError.self) { try store.remove(for: bad) }
            }
            #expect(listing(folder).isEmpty)
        }
    }
}
