import Foundation
import TestSupport
import Testing
import Validator

@testable import OpenAPIImport

/// Numbers no rule can hold (`1e20` as a count, YAML's `.inf` and `.nan`) in bounds, lengths and
/// counts: each is a per-operation finding naming the schema place, never a trap, and the rest
/// of the schema is still checked.
@Suite(.timeLimit(.minutes(2)))
struct OutOfRangeNumberTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// The YAML of the `value` property's schema.
        let schema: String
        /// The keywords reported as not checked.
        let reported: [String]
        /// The rules the `value` key still gets.
        let rules: JSONValue?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "1e20 as maxLength and minItems",
            schema: "{type: array, minItems: 1e20, maxItems: 3, items: {type: string, maxLength: 1e20}}",
            reported: ["maxLength", "minItems"], rules: .object(["elementsMustBeEqualOrLessThan": .int(3)])),
        Case(
            name: "1e20 as minLength beside a valid maxLength", schema: "{type: string, minLength: 1e20, maxLength: 8}",
            reported: ["minLength"], rules: .object(["lengthMustBeEqualOrLessThan": .int(8)])),
        Case(
            name: ".inf as maximum and maxLength",
            schema: "{type: object, required: [n, s], properties: {n: {type: integer, minimum: 2, maximum: .inf}, "
                + "s: {type: string, maxLength: .inf}}}",
            reported: ["maxLength", "maximum"], rules: nil),
        Case(
            name: "-.inf as minimum of a number", schema: "{type: number, minimum: -.inf, maximum: 9.5}",
            reported: ["minimum"], rules: .object(["maximum": .double(9.5)])),
        Case(
            name: ".nan as minimum, maxLength and minItems",
            schema: "{type: array, minItems: .nan, items: {type: object, required: [n, s], "
                + "properties: {n: {type: number, minimum: .nan}, s: {type: string, maxLength: .NaN}}}}",
            reported: ["maxLength", "minItems", "minimum"], rules: nil),
        Case(
            name: ".nan and .inf as examples are not used", schema: "{type: number, example: .nan, default: .inf, minimum: 3}",
            reported: [], rules: .object(["minimum": .int(3)])),
    ]

    static func description(_ schema: String) -> String {
        """
        openapi: 3.1.0
        info: {title: numbers, version: '1'}
        paths:
          /n:
            get:
              operationId: numbers
              responses:
                '200':
                  description: a value
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [value]
                        properties:
                          value: \(schema)
        """
    }

    @Test(arguments: cases) func aNumberNoRuleCanHoldIsReportedNotTrapped(_ input: Case) throws {
        let url = try Fixtures.file("numbers.yaml", Self.description(input.schema))
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let description = try OpenAPIDescription.load(contentsOf: url, maxBytes: 1 << 20)
        let operation = try #require(OpenAPIImporter().operations(in: description)[named: "numbers"])
        #expect(operation.isWritten, "\(operation.skipReason ?? "")")
        let notChecked = operation.findings.filter { $0.kind == .notChecked }
        #expect(Set(notChecked.map(\.construct)) == Set(input.reported), "\(operation.findings)")
        for finding in notChecked {
            #expect(finding.pointer.hasPrefix("/paths/~1n/get/responses/200/content/application~1json/schema/properties/value"))
        }
        #expect(operation.value(at: "/value-Rules") == input.rules)
        let template = try #require(operation.template)
        #expect(Validator.checkTemplate(template).isEmpty)
        // What is written reads back the same: no infinite or NaN number became a `null`.
        #expect(try JSONValue(parsing: template.serialized()) == template)
    }

    @Test func aJSONDescriptionWith1e20IsReportedAndOneBeyondEveryDoubleIsRefused() throws {
        func file(maximum: String) throws -> URL {
            try Fixtures.file(
                "numbers.json",
                #"{"openapi": "3.0.3", "info": {"title": "numbers", "version": "1"}, "paths": {"/n": {"get": {"operationId": "numbers", "#
                    + #""responses": {"200": {"description": "a value", "content": {"application/json": {"schema": {"type": "object", "#
                    + #""properties": {"name": {"type": "string", "maxLength": 1e20}, "count": {"type": "integer", "maximum": "#
                    + maximum + "}}}}}}}}}}}")
        }
        let url = try file(maximum: "10")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let description = try OpenAPIDescription.load(contentsOf: url, maxBytes: 1 << 20)
        let operation = try #require(OpenAPIImporter().operations(in: description)[named: "numbers"])
        #expect(operation.isWritten)
        #expect(
            operation.findings.contains { $0.kind == .notChecked && $0.construct == "maxLength" && $0.message.contains("not a count") },
            "\(operation.findings)")
        #expect(operation.value(at: "/name-Rules") == .object(["isOptional": .bool(true)]))
        #expect(operation.value(at: "/count-Rules") == .object(["isOptional": .bool(true), "maximum": .int(10)]))
        // 1e400 is beyond every Double: the file is refused with one clear error, no trap.
        let beyond = try file(maximum: "1e400")
        defer { try? FileManager.default.removeItem(at: beyond.deletingLastPathComponent()) }
        do {
            _ = try OpenAPIDescription.load(contentsOf: beyond, maxBytes: 1 << 20)
            Issue.record("1e400 was read")
        } catch {
            #expect(String(describing: error).contains(beyond.path), "\(error)")
        }
    }

    @Test func theCommandReportsEachAndExitsZero() async throws {
        let schema =
            "{type: object, properties: {a: {type: string, maxLength: 1e20}, b: {type: integer, maximum: .inf}, "
            + "c: {type: array, minItems: .nan}}}"
        let url = try Fixtures.file("numbers.yaml", Self.description(schema))
        let folder = url.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let result = try await APILayerExecutable.run(["templates", "import", url.path, "--out", out.path])
        #expect(result.status == 0, "\(result.output) \(result.error)")
        for keyword in ["maxLength", "maximum", "minItems"] {
            #expect(result.output.contains("notChecked /paths/~1n/get/responses/200/content/application~1json/schema/properties/value/properties/"))
            #expect(result.output.contains(": \(keyword): \(keyword) "), "\(result.output)")
        }
        let check = try await APILayerExecutable.run(["templates", "check", out.path])
        #expect(check.status == 0, "\(check.output) \(check.error)")
    }
}
