import Foundation
import Testing
import Validator

@testable import OpenAPIImport

/// `required` and `nullable` kept apart, on a GitHub-shaped description (`issues.yaml`): a
/// required nullable key must be present, an array of nullable objects checks its non-null
/// elements, and the templates judge responses as the schema would.
@Suite struct NullabilityMappingTests {
    static func issue() throws -> ImportedOperation {
        try #require(try Fixtures.operations("issues.yaml")[named: "issues/get"])
    }

    @Test func aRequiredNullablePropertyIsNullableNotOptional() throws {
        let issue = try Self.issue()
        #expect(issue.isWritten)
        #expect(issue.value(at: "/assignee-Rules") == .object(["isNullable": .bool(true)]))
        // The referenced schema's own shape is the template of the value.
        #expect(issue.value(at: "/assignee/id-Rules") == .object(["minimum": .int(1)]))
        #expect(issue.value(at: "/assignee/name-Rules") == .object(["isOptional": .bool(true), "isNullable": .bool(true)]))
    }

    @Test func notRequiredPropertiesAreOptionalAndNullableOnesSayItToo() throws {
        let issue = try Self.issue()
        #expect(issue.value(at: "/body-Rules") == .object(["isOptional": .bool(true), "isNullable": .bool(true)]))
        #expect(
            issue.value(at: "/state_reason-Rules")
                == .object(["isOptional": .bool(true), "matchWithOneOf": .array([.string("completed"), .string("not_planned")])]))
        #expect(issue.value(at: "/title-Rules") == nil)
    }

    @Test func anArrayOfNullableObjectsKeepsTheElementTemplate() throws {
        let issue = try Self.issue()
        #expect(issue.value(at: "/assignees-Rules") == .object(["elementsMustBeEqualOrLessThan": .int(10), "elementsMayBeNull": .bool(true)]))
        #expect(issue.value(at: "/assignees/0/login") == .string("string"))
        #expect(issue.value(at: "/assignees/0/id-Rules") == .object(["minimum": .int(1)]))
        // Nullable strings as elements: the null elements are said, the element stays a string.
        #expect(issue.value(at: "/labels") == .array([.string("string")]))
        #expect(issue.value(at: "/labels-Rules") == .object(["elementsMayBeNull": .bool(true)]))
        #expect(!issue.findings.contains { $0.construct == "items" })
        #expect(Validator.checkTemplate(try #require(issue.template)).isEmpty)
    }

    struct Answer: Sendable, CustomTestStringConvertible {
        let name: String
        let body: String
        /// `"<path> <rule>"` of every error expected.
        let expected: [String]
        var testDescription: String { name }
    }

    /// An issue with `id`, `number` and `title`, then `rest`.
    static func issue(_ rest: String) -> String { #"{"id": 1, "number": 2, "title": "t", "# + rest + "}" }

    static let answers: [Answer] = [
        Answer(
            name: "assignee null, assignees with a null",
            body: issue(#""assignee": null, "assignees": [null, {"login": "a", "id": 3}], "labels": ["bug", null]"#), expected: []),
        Answer(
            name: "assignee a user", body: issue(#""assignee": {"login": "a", "id": 3}, "assignees": [], "labels": []"#), expected: []),
        Answer(name: "assignee missing", body: issue(#""assignees": [], "labels": []"#), expected: ["/assignee key"]),
        Answer(
            name: "assignee invalid", body: issue(#""assignee": {"login": "", "id": 0}, "assignees": [], "labels": []"#),
            expected: ["/assignee/id minimum", "/assignee/login lengthMustBeEqualOrGreaterThan"]),
        Answer(
            name: "an element of assignees invalid", body: issue(#""assignee": null, "assignees": [null, {"id": 3}], "labels": [7]"#),
            expected: ["/assignees/1/login key", "/labels/0 type"]),
        Answer(
            name: "assignees null", body: issue(#""assignee": null, "assignees": null, "labels": []"#), expected: ["/assignees type"]),
    ]

    @Test(arguments: answers) func theTemplateJudgesAnswersAsTheSchemaDoes(_ answer: Answer) throws {
        let template = try Template(try #require(try Self.issue().template))
        let errors = Validator.validate(try JSONValue(parsing: Data(answer.body.utf8)), against: template)
        #expect(errors.map { "\($0.path) \($0.rule)" } == answer.expected, "\(errors)")
    }

    @Test func aRootArrayOfNullableObjectsChecksNoElementAndSaysSo() throws {
        let list = try #require(try Fixtures.operations("issues.yaml")[named: "issues/list-assignees"])
        #expect(list.isWritten)
        // The root has no key for elementsMayBeNull: a null element must not fail, so no element is checked.
        #expect(list.template == .array([.null]))
        #expect(list.findings.contains { $0.construct == "root" && $0.message.contains("null elements") })
    }

    @Test func nestedArraysOfNullableElementsLeaveTheInnerElementsUnchecked() throws {
        let url = try Fixtures.file(
            "nested.yaml",
            """
            openapi: 3.1.0
            info: {title: t, version: '1'}
            paths:
              /grid:
                get:
                  operationId: grid
                  responses:
                    '200':
                      description: rows of cells
                      content:
                        application/json:
                          schema:
                            type: object
                            required: [rows]
                            properties:
                              rows:
                                type: array
                                items: {type: array, items: {type: [integer, 'null']}}
            """)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let description = try OpenAPIDescription.load(contentsOf: url, maxBytes: 1 << 20)
        let grid = try #require(OpenAPIImporter().operations(in: description)[named: "grid"])
        #expect(grid.value(at: "/rows") == .array([.array([.null])]))
        #expect(grid.value(at: "/rows-Rules") == nil)
        #expect(grid.findings.contains { $0.construct == "items" && $0.message.contains("null elements of the inner arrays") })
    }
}
