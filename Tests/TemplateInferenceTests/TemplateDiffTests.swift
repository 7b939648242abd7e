import Foundation
import TemplateInference
import Testing
import Validator

@Suite struct TemplateDiffTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var old: String
        var new: String
        /// `kind pointer breaking|compatible`, in order.
        var expected: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "identical", old: #"{"a": 1, "a-Rules": {"minimum": 0}}"#, new: #"{"a": 5, "a-Rules": {"minimum": 0}}"#, expected: []),
        Case(name: "required key removed", old: #"{"a": 1, "b": 2}"#, new: #"{"a": 1}"#, expected: ["keyRemoved /b breaking"]),
        Case(
            name: "optional key removed", old: #"{"a": 1, "b": 2, "b-Rules": {"isOptional": true}}"#, new: #"{"a": 1}"#,
            expected: ["keyRemoved /b compatible"]),
        Case(name: "required key added", old: #"{"a": 1}"#, new: #"{"a": 1, "b": "x"}"#, expected: ["keyAdded /b breaking"]),
        Case(
            name: "optional key added", old: #"{"a": 1}"#, new: #"{"a": 1, "b": "x", "b-Rules": {"isOptional": true}}"#,
            expected: ["keyAdded /b compatible"]),
        Case(
            name: "type changed in an element", old: #"{"items": [{"online": 1}]}"#, new: #"{"items": [{"online": true}]}"#,
            expected: ["typeChanged /items/*/online breaking"]),
        Case(name: "any value became a type", old: #"{"a": null}"#, new: #"{"a": "x"}"#, expected: ["typeChanged /a breaking"]),
        Case(
            name: "may now be absent", old: #"{"body": null}"#, new: #"{"body": null, "body-Rules": {"isOptional": true}}"#,
            expected: ["optionalChanged /body breaking"]),
        Case(
            name: "may now be null", old: #"{"a": {"x": 1}}"#, new: #"{"a": {"x": 1}, "a-Rules": {"isNullable": true}}"#,
            expected: ["nullableChanged /a breaking"]),
        Case(
            name: "elements may now be null", old: #"{"l": [1]}"#, new: #"{"l": [1], "l-Rules": {"elementsMayBeNull": true}}"#,
            expected: ["nullableChanged /l/* breaking"]),
        Case(
            name: "minimum raised and maximum added", old: #"{"n": 1, "n-Rules": {"minimum": 0}}"#,
            new: #"{"n": 1, "n-Rules": {"minimum": 1, "maximum": 9}}"#,
            expected: ["ruleTightened /n breaking", "ruleTightened /n breaking"]),
        Case(
            name: "length rule removed", old: #"{"s": "x", "s-Rules": {"lengthMustBeEqualOrGreaterThan": 1}}"#, new: #"{"s": "x"}"#,
            expected: ["ruleLoosened /s compatible"]),
        Case(
            name: "an enum value added", old: #"{"s": "a", "s-Rules": {"matchWithOneOf": ["a", "b"]}}"#,
            new: #"{"s": "a", "s-Rules": {"matchWithOneOf": ["a", "b", "c"]}}"#, expected: ["ruleLoosened /s breaking"]),
        Case(
            name: "an enum value dropped", old: #"{"s": "a", "s-Rules": {"matchWithOneOf": ["a", "b"]}}"#,
            new: #"{"s": "a", "s-Rules": {"matchWithOneOf": ["a"]}}"#, expected: ["ruleTightened /s breaking"]),
        Case(
            name: "suffix lengthened", old: #"{"s": "a.jpg", "s-Rules": {"hasSuffix": ".jpg"}}"#,
            new: #"{"s": "a.x.jpg", "s-Rules": {"hasSuffix": ".x.jpg"}}"#, expected: ["ruleTightened /s breaking"]),
        Case(name: "root type", old: #"{"a": 1}"#, new: #"[{"a": 1}]"#, expected: ["typeChanged  breaking"]),
        Case(name: "a key with a slash", old: #"{"a/b": 1}"#, new: #"{}"#, expected: ["keyRemoved /a~1b breaking"]),
    ]

    @Test(arguments: cases)
    func changesAreFoundAndClassed(_ test: Case) throws {
        let old = try JSONValue(parsing: test.old)
        let new = try JSONValue(parsing: test.new)
        #expect(Validator.checkTemplate(old).isEmpty && Validator.checkTemplate(new).isEmpty)
        let changes = TemplateDiff.changes(from: old, to: new, method: "m")
        #expect(changes.map { "\($0.kind) \($0.pointer) \($0.isBreaking ? "breaking" : "compatible")" } == test.expected)
    }

    @Test func foldersAreMatchedByNameAndAFolderIsNotComparedWithAFile() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-diff-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let files = [
            "old/users.get.json": #"{"response": [{"id": 1, "last_name": "D"}]}"#,
            "old/issues/list.json": #"[{"id": 1}]"#,
            "old/gone.json": #"{"x": 1}"#,
            "new/users.get.json": #"{"response": [{"id": 1}]}"#,
            "new/issues/list.json": #"[{"id": 1}]"#,
            "new/fresh.json": #"{"y": 1}"#,
        ]
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let changes = try TemplateDiff.changes(from: root.appendingPathComponent("old"), to: root.appendingPathComponent("new"))
        #expect(
            changes.map(\.description) == [
                "compatible fresh (root): a template only in the new set",
                "breaking   gone (root): no template in the new set: its calls would fail for want of one",
                "breaking   users.get /response/*/last_name: key removed (it was required)",
            ])
        let file = root.appendingPathComponent("new/users.get.json")
        #expect(throws: TemplateDiffError.folderAgainstFile(folder: root.appendingPathComponent("old").path, file: file.path)) {
            try TemplateDiff.changes(from: root.appendingPathComponent("old"), to: file)
        }
        try Data("{not json".utf8).write(to: root.appendingPathComponent("new/bad.json"))
        #expect {
            try TemplateDiff.changes(from: root.appendingPathComponent("old"), to: root.appendingPathComponent("new"))
        } throws: { error in
            "\(error)".contains("new/bad.json") && "\(error)".contains("not valid JSON")
        }
    }
}
