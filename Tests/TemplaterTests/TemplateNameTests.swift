import Testing
@testable import Templater

struct TemplateNameTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var valid: Bool
        var testDescription: String { "\(valid ? "accepts" : "refuses") '\(name)'" }
    }

    static let cases: [Case] = [
        Case(name: "users.get", valid: true),
        Case(name: "photos.getWallUploadServer", valid: true),
        Case(name: "auth_logout-v2", valid: true),
        Case(name: "пользователи.get", valid: true),
        Case(name: "", valid: false),
        Case(name: "..", valid: false),
        Case(name: "users..get", valid: false),
        Case(name: "../users.get", valid: false),
        Case(name: "users/get", valid: false),
        Case(name: "users\\get", valid: false),
        Case(name: "/etc/passwd", valid: false),
        Case(name: ".hidden", valid: false),
        Case(name: "line\nbreak", valid: false),
        Case(name: String(repeating: "a", count: 201), valid: false),
    ]

    @Test(arguments: cases)
    func validation(_ testCase: Case) throws {
        if testCase.valid {
            let name = try TemplateName(testCase.name)
            #expect(name.fileName == testCase.name + ".json")
            #expect(TemplateName(fileName: name.fileName) == name)
        } else {
            #expect(throws: TemplaterError.self) { try TemplateName(testCase.name) }
        }
    }

    @Test func storeRefusesBadNamesEverywhere() throws {
        try withTemporaryFolder { folder in
            let store = TemplateStore(directory: folder)
            for bad in ["../x", "a/b", ".."] {
                #expect(throws: TemplaterError.self) { try store.template(for: bad) }
                #expect(throws: TemplaterError.self) { try store.write(sampleTemplate(1), for: bad) }
                #expect(throws: TemplaterError.self) { try store.remove(for: bad) }
            }
            #expect(listing(folder).isEmpty)
        }
    }
}
