import Foundation
import Testing
import Validator

@testable import OpenAPIImport

/// JSON Schema to templates and rules, case by case, on the two fixture descriptions (3.1 YAML
/// and 3.0 JSON).
@Suite struct SchemaMappingTests {
    @Test func boundsLengthsEnumsCountsAndOptionalKeysBecomeRules() throws {
        let operations = try Fixtures.operations("inventory.yaml")
        let item = try #require(operations[named: "getItem"])
        #expect(item.isWritten)
        #expect(item.status == 200)
        #expect(item.value(at: "/id-Rules") == .object(["minimum": .int(1)]))
        #expect(item.value(at: "/name-Rules") == .object(["lengthMustBeEqualOrGreaterThan": .int(1), "lengthMustBeEqualOrLessThan": .int(40)]))
        #expect(item.value(at: "/status-Rules") == .object(["matchWithOneOf": .array(["available", "reserved", "sold"].map(JSONValue.string))]))
        // allOf merged: NewItem's minimum 0 and Item's exclusiveMaximum 10000 (inclusive here: reported).
        #expect(item.value(at: "/price-Rules") == .object(["minimum": .int(0), "maximum": .int(10000)]))
        // Integer bounds stay exact: exclusiveMinimum -1 is minimum 0.
        #expect(item.value(at: "/stock-Rules") == .object(["minimum": .int(0), "maximum": .int(1000), "isOptional": .bool(true)]))
        #expect(
            item.value(at: "/tags-Rules") == .object(["elementsMustBeEqualOrMoreThan": .int(1), "elementsMustBeEqualOrLessThan": .int(5)]))
        // Not required and nullable: both facts are written.
        #expect(item.value(at: "/note-Rules") == .object(["isOptional": .bool(true), "isNullable": .bool(true)]))
        #expect(item.value(at: "/sku-Rules") == .object(["isOptional": .bool(true)]))
        // Values come from the named example.
        #expect(item.value(at: "/name") == .string("Widget"))
        #expect(item.value(at: "/tags") == .array([.string("tools")]))
        // The recursive parent is cut where it recurs: any value passes there.
        #expect(item.value(at: "/parent-Rules") == .object(["isOptional": .bool(true)]))
        #expect(item.value(at: "/parent") == .null)
        #expect(item.findings.contains { $0.construct == "$ref" && $0.kind == .weakened })
        #expect(item.findings.contains { $0.construct == "pattern" && $0.pointer.hasSuffix("/schema/properties/sku") })
        #expect(item.findings.contains { $0.construct == "format" })
        #expect(item.findings.contains { $0.construct == "exclusiveMaximum" && $0.kind == .weakened })
        #expect(!item.findings.contains { $0.kind == .exampleContradicts })
        // The template is one the validator accepts.
        #expect(Validator.checkTemplate(try #require(item.template)).isEmpty)
    }

    @Test func arraysHoldOneElementAndListsKeepTheirObjectsRules() throws {
        let operations = try Fixtures.operations("inventory.yaml")
        let list = try #require(operations[named: "listItems"])
        guard case let .array(elements)? = list.value(at: "/items") else {
            Issue.record("items is not an array")
            return
        }
        #expect(elements.count == 1)
        #expect(list.value(at: "/items/0/id-Rules") == .object(["minimum": .int(1)]))
        #expect(list.value(at: "/items-Rules") == .object(["elementsMustBeEqualOrLessThan": .int(50)]))
        #expect(list.value(at: "/total-Rules") == .object(["minimum": .int(0)]))
        // Made-up values obey their bounds.
        #expect(list.value(at: "/items/0/id") == .int(1))
        #expect(list.value(at: "/items/0/updated") == .string("2025-01-01T00:00:00Z"))
    }

    @Test func anOperationWithoutAJSONSuccessBodyIsSkippedAndSaysWhy() throws {
        let operations = try Fixtures.operations("inventory.yaml")
        let delete = try #require(operations[named: "deleteItem"])
        #expect(!delete.isWritten)
        #expect(delete.isCallable)
        #expect(delete.successStatuses == [204])
        #expect(delete.skipReason?.contains("JSON body") == true)
        let created = try #require(operations[named: "createItem"])
        #expect(created.status == 201)
        #expect(created.requestEncoding == "json")
    }

    @Test func openAPI30NullableExclusiveBooleansAndExamplesThatContradict() throws {
        let operations = try Fixtures.operations("legacy.json")
        let account = try #require(operations[named: "accounts/get"])
        #expect(account.isWritten)
        #expect(account.pathParameters == ["accountId"])
        // exclusiveMaximum: true on an integer: maximum 5 becomes 4.
        #expect(account.value(at: "/level-Rules") == .object(["minimum": .int(1), "maximum": .int(4)]))
        // Required and nullable: the key must be present, null passes; the enum stays.
        #expect(
            account.value(at: "/plan-Rules") == .object(["matchWithOneOf": .array([.string("free"), .string("gold")]), "isNullable": .bool(true)]))
        #expect(account.value(at: "/balance") == .double(12.5))
        // "Ann" is longer than maxLength 2: the example contradicts its own schema.
        #expect(account.findings.contains { $0.kind == .exampleContradicts && $0.message.contains("/owner/name") })
    }

    @Test func whatTheRulesCannotSayIsReportedPerOperation() throws {
        let operations = try Fixtures.operations("legacy.json")
        let choice = try #require(operations[named: "choice"])
        #expect(choice.isWritten)
        let constructs = Set(choice.constructs)
        #expect(constructs.isSuperset(of: ["oneOf", "multipleOf", "exclusiveMinimum", "additionalProperties", "example"]))
        #expect(choice.value(at: "/pet") == .null)
        #expect(choice.findings.contains { $0.construct == "oneOf" && $0.message.contains("discriminator") })
        // The property example "x" breaks minLength 2.
        #expect(choice.findings.contains { $0.kind == .exampleContradicts && $0.message.contains("lengthMustBeEqualOrGreaterThan") })
    }

    @Test func anOperationWithoutOperationIdIsNamedFromMethodAndPath() throws {
        let operations = try Fixtures.operations("legacy.json")
        let made = try #require(operations[named: "post-accounts"])
        #expect(made.operationID == nil)
        #expect(made.isWritten)
        #expect(made.requestEncoding == "form")
        #expect(made.findings.contains { $0.kind == .named && $0.message.contains("post-accounts") })
    }

    @Test func aRefToNowhereSkipsTheOperationAndNamesTheRef() throws {
        let operations = try Fixtures.operations("legacy.json")
        let broken = try #require(operations[named: "broken"])
        #expect(!broken.isWritten)
        #expect(broken.skipReason?.contains("#/components/schemas/Nowhere") == true)
    }

    @Test func onlyTheOperationsAskedForAndUnknownOnesAreListed() throws {
        let operations = try Fixtures.operations("inventory.yaml", only: ["getItem", "noSuchOperation"])
        #expect(operations.map(\.name) == ["getItem", "noSuchOperation"])
        #expect(operations[named: "noSuchOperation"]?.skipReason == "no operation noSuchOperation in the description")
    }
}
