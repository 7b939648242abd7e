import Foundation
import Testing
import Validator

@testable import OpenAPIImport

/// What reading through OpenAPIKit must keep as the importer had it: the declared versions it
/// accepts, references it follows, and choices made by the description's names, not by the
/// order of OpenAPIKit's dictionaries.
@Suite struct OpenAPIKitReadingTests {
    static func operations(_ yaml: String) throws -> [ImportedOperation] {
        let description = try OpenAPIDescription.parse(Data(yaml.utf8), path: "reading.yaml")
        return OpenAPIImporter().operations(in: description)
    }

    @Test(arguments: ["3.0", "3.1", "3.0.9", "3.1.7"])
    func aVersionWithoutOrWithAnUnlistedPatchIsRead(_ version: String) throws {
        let operations = try Self.operations(
            """
            openapi: '\(version)'
            info: {title: t, version: '1'}
            paths:
              /a:
                get:
                  operationId: a
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json:
                          schema: {type: object, required: [n], properties: {n: {type: integer, minimum: 2}}}
            """)
        #expect(operations[named: "a"]?.value(at: "/n-Rules") == .object(["minimum": .int(2)]))
    }

    @Test func theFirstNamedExampleIsTheFirstByName() throws {
        // OpenAPIKit's `example` is the first of `examples` in its dictionary's order; the import
        // takes the first name, sorted, whatever that order is.
        let names = ["h", "c", "f", "a", "g", "b", "e", "d"]
        let examples = names.map { "                    \($0): {value: {n: '\($0)'}}" }.joined(separator: "\n")
        let operations = try Self.operations(
            """
            openapi: 3.1.0
            info: {title: t, version: '1'}
            paths:
              /a:
                get:
                  operationId: a
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json:
                          schema: {type: object, properties: {n: {type: string}}}
                          examples:
            \(examples)
            """)
        #expect(operations[named: "a"]?.value(at: "/n") == .string("a"))
    }

    @Test func pathItemsResponsesAndParametersGivenByReferenceAreFollowed() throws {
        let operations = try Self.operations(
            """
            openapi: 3.1.0
            info: {title: t, version: '1'}
            paths:
              /b:
                $ref: '#/components/pathItems/B'
            components:
              parameters:
                Q: {name: q, in: query, schema: {type: string}}
              responses:
                Ok:
                  description: ok
                  content:
                    application/json:
                      schema: {type: object, required: [k], properties: {k: {type: string, maxLength: 3}}}
              pathItems:
                B:
                  get:
                    operationId: b
                    parameters: [{$ref: '#/components/parameters/Q'}]
                    responses:
                      '2XX': {$ref: '#/components/responses/Ok'}
            """)
        let b = try #require(operations[named: "b"])
        #expect(b.isWritten, "\(b.skipReason ?? "")")
        #expect(b.status == 200)
        #expect(b.queryParameters == ["q"])
        #expect(b.value(at: "/k-Rules") == .object(["lengthMustBeEqualOrLessThan": .int(3)]))
    }
}
