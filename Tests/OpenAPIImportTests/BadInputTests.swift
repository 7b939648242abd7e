import Foundation
import Testing
import Validator

@testable import OpenAPIImport

/// Descriptions that are not what they should be: each gives a clear error or a report, in
/// bounded time and memory.
@Suite struct BadInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let file: String
        let text: String
        let message: String
        var testDescription: String { name }
    }

    static let unreadable: [Case] = [
        Case(name: "not JSON or YAML", file: "x.yaml", text: "openapi: [unclosed", message: "neither JSON nor YAML"),
        Case(name: "broken JSON", file: "x.json", text: #"{"openapi": "3.1.0","#, message: "JSON"),
        Case(name: "not OpenAPI", file: "x.json", text: #"{"name": "package.json"}"#, message: "no \"openapi\" field"),
        Case(name: "Swagger 2.0", file: "x.yaml", text: "swagger: '2.0'\npaths: {}\n", message: "Swagger 2.0"),
        Case(name: "OpenAPI 4", file: "x.yaml", text: "openapi: 4.0.0\npaths: {}\n", message: "version 4.0.0"),
        Case(name: "no paths", file: "x.yaml", text: "openapi: 3.1.0\ninfo: {title: t, version: '1'}\n", message: "no \"paths\""),
        Case(name: "a scalar", file: "x.yaml", text: "just a string\n", message: "not an object"),
        // What OpenAPIKit refuses, in its words.
        Case(name: "no info", file: "x.yaml", text: "openapi: 3.1.0\npaths: {}\n", message: "Expected to find `info` key"),
        Case(
            name: "a component name outside the spec's characters", file: "x.yaml",
            text: "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    Thing Two: {type: object}\n",
            message: "'Thing Two' does not"),
        Case(
            name: "an operation whose responses is not an object", file: "x.yaml",
            text: "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get: {responses: [x]}\n",
            message: "/a"),
        Case(
            name: "YAML aliases that expand without end", file: "x.yaml",
            text: (["openapi: 3.1.0", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
                + (1...9).map {
                    "a\($0): &a\($0) [*a\($0 - 1), *a\($0 - 1), *a\($0 - 1), *a\($0 - 1), *a\($0 - 1), *a\($0 - 1), *a\($0 - 1), *a\($0 - 1), *a\($0 - 1), *a\($0 - 1)]"
                })
                .joined(separator: "\n") + "\n",
            message: "more than"),
    ]

    @Test(arguments: unreadable)
    func aDescriptionThatCannotBeReadGivesOneClearError(_ input: Case) throws {
        let url = try Fixtures.file(input.file, input.text)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        do {
            _ = try OpenAPIDescription.load(contentsOf: url, maxBytes: 1 << 20)
            Issue.record("\(input.name) was read")
        } catch {
            #expect(String(describing: error).contains(input.message), "\(error)")
            #expect(String(describing: error).contains(url.path))
        }
    }

    @Test func aFileLargerThanTheLimitIsRefusedBeforeItIsParsed() throws {
        // The bounded version of the 50 MB case: the size is checked first, so neither time nor
        // memory grows with the file.
        let head = #"{"openapi": "3.1.0", "info": {"title": "big", "version": "1"}, "paths": {}, "padding": ""#
        let url = try Fixtures.file("big.json", head + String(repeating: "x", count: 300_000) + "\"}")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let bytes = try #require(FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
        #expect(throws: OpenAPIImportError.tooLarge(path: url.path, bytes: bytes, limit: 100_000)) {
            try OpenAPIDescription.load(contentsOf: url, maxBytes: 100_000)
        }
        #expect(try OpenAPIDescription.load(contentsOf: url, maxBytes: 1 << 20).version == .v31)
    }

    @Test func aMissingFileAndAFolderAreUnreadable() throws {
        let folder = try Fixtures.folder("openapi-missing")
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: OpenAPIImportError.self) { try OpenAPIDescription.load(contentsOf: folder, maxBytes: 1 << 20) }
        #expect(throws: OpenAPIImportError.unreadable(path: folder.path + "/none.yaml", reason: "no such file")) {
            try OpenAPIDescription.load(contentsOf: folder.appendingPathComponent("none.yaml"), maxBytes: 1 << 20)
        }
    }

    /// A response whose schema (and path item) only refers in circles.
    static let cycles = """
        openapi: 3.1.0
        info: {title: Cycles, version: '1'}
        paths:
          /loop:
            get:
              operationId: loop
              responses:
                '200':
                  description: x
                  content:
                    application/json:
                      schema: {$ref: '#/components/schemas/A'}
          /tree:
            get:
              operationId: tree
              responses:
                '200':
                  description: x
                  content:
                    application/json:
                      schema: {$ref: '#/components/schemas/Node'}
          /mutual:
            $ref: '#/paths/~1other'
          /other:
            $ref: '#/paths/~1mutual'
        components:
          schemas:
            A: {$ref: '#/components/schemas/B'}
            B: {allOf: [{$ref: '#/components/schemas/A'}]}
            Node:
              type: object
              required: [children]
              properties:
                name: {type: string}
                children:
                  type: array
                  items: {$ref: '#/components/schemas/Node'}
        """

    @Test func referenceCyclesEndAndAreReported() throws {
        let url = try Fixtures.file("cycles.yaml", Self.cycles)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let description = try OpenAPIDescription.load(contentsOf: url, maxBytes: 1 << 20)
        let operations = OpenAPIImporter().operations(in: description)
        let loop = try #require(operations[named: "loop"])
        #expect(loop.isWritten)
        #expect(loop.template == .null)
        #expect(loop.findings.contains { $0.construct == "$ref" && $0.kind == .weakened })
        let tree = try #require(operations[named: "tree"])
        #expect(tree.value(at: "/children") == .array([.null]))
        #expect(operations.filter { $0.skipReason?.contains("cycle") == true }.count == 2)
    }

    @Test func aTemplateStopsGrowingAtItsBudget() throws {
        // Ten levels of ten properties, each a reference to the next level: 10^10 values if
        // expanded; the budget stops it.
        var lines = [
            "openapi: 3.1.0", "info: {title: Wide, version: '1'}", "paths:", "  /wide:", "    get:", "      operationId: wide",
            "      responses:", "        '200':", "          description: x", "          content:", "            application/json:",
            "              schema: {$ref: '#/components/schemas/L0'}", "components:", "  schemas:",
        ]
        for level in 0..<10 {
            lines.append("    L\(level):")
            lines.append("      type: object")
            lines.append("      properties:")
            for property in 0..<10 {
                lines.append(
                    level == 9 ? "        p\(property): {type: string}" : "        p\(property): {$ref: '#/components/schemas/L\(level + 1)'}")
            }
        }
        let url = try Fixtures.file("wide.yaml", lines.joined(separator: "\n") + "\n")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let description = try OpenAPIDescription.load(contentsOf: url, maxBytes: 1 << 20)
        let operations = OpenAPIImporter(maxTemplateValues: 5_000).operations(in: description)
        let wide = try #require(operations[named: "wide"])
        #expect(wide.isWritten)
        #expect(wide.findings.contains { $0.construct == "size" })
        // The budget counts schema values; each may bring its -Rules object and a rule or two.
        #expect(wide.template.map(Self.count) ?? 0 <= 4 * 5_000)
    }

    static func count(_ value: JSONValue) -> Int {
        switch value {
        case let .object(fields): return 1 + fields.values.reduce(0) { $0 + count($1) }
        case let .array(elements): return 1 + elements.reduce(0) { $0 + count($1) }
        default: return 1
        }
    }
}
