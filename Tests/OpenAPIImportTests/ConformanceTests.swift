import APILayer
import DemoServer
import Foundation
import NetOps
import OpenAPIImport
import Templater
import TestSupport
import Testing
import Validator

/// The templates imported from `Fixtures/inventory.yaml`, used by the recipe enum written from
/// the same description (`InventoryAPI.swift`), against DemoServer's inventory routes: a
/// conforming answer passes, an answer that breaks each kind of rule fails, and stubs answer
/// from the same files.
/// Holds the process gate shared: its calls park operations (token refresh), which a test that
/// releases every parked operation of the process must not meet.
@Suite(.processGate(.shared, minutes: 5))
struct ConformanceTests {
    /// What the inventory API's items decode into.
    struct Item: Decodable, Sendable {
        var id: Int
        var name: String
        var status: String
        var tags: [String]
        var note: String?
    }

    /// The templates of `inventory.yaml` in a fresh folder, and a scope of the inventory API
    /// against a realm of its own on the shared DemoServer.
    static func inventoryAPI(stubs: StubMode = .off) async throws -> (scope: APIScope, folder: URL) {
        let folder = try Fixtures.folder("conformance")
        let description = try OpenAPIDescription.load(contentsOf: Fixtures.url("inventory.yaml"), maxBytes: 1 << 20)
        _ = try TemplateFileWriter.write(OpenAPIImporter().operations(in: description), to: folder)
        let server = try await TestServer.get()
        let realm = "inventory-\(UUID().uuidString)"
        let scope = APIScope(name: "inventory")
        scope.configure {
            $0.baseURL = server.baseURL.appendingPathComponent("inventory/\(realm)/", isDirectory: true)
            $0.templates = TemplateStore(directory: folder)
            $0.stubMode = stubs
        }
        scope.configureAuthentication(
            authenticator: OAuthClientCredentialsAuthenticator(
                tokenURL: server.tokenURL(realm: realm), clientID: DemoServer.clientCredentials.id,
                clientSecret: DemoServer.clientCredentials.secret))
        return (scope, folder)
    }

    @Test func aConformingAnswerAndOneWithoutItsOptionalKeysPass() async throws {
        let (scope, folder) = try await Self.inventoryAPI()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await InventoryAPI.withAPI(scope) {
            let item = try await APIManager.call(InventoryAPI.getItem, properties: ["id": 7], as: Item.self)
            #expect(item.id == 7)
            #expect(item.name == "Item 7")
            let sparse = try await APIManager.call(InventoryAPI.getItem, properties: ["id": 8, "variant": "sparse"], as: Item.self)
            #expect(sparse.note == nil)
            struct Page: Decodable, Sendable {
                var items: [Item]
                var total: Int
            }
            let page = try await APIManager.call(InventoryAPI.listItems, properties: ["limit": 4], as: Page.self)
            #expect(page.items.map(\.id) == [1, 2, 3, 4])
            let created = try await APIManager.call(
                InventoryAPI.createItem, properties: ["name": "Rake", "price": 12.5, "tags": ["garden"]], as: Item.self)
            #expect(created.name == "Rake")
            _ = try await APIManager.call(InventoryAPI.deleteItem, properties: ["id": created.id], as: NoContent.self)
        }
    }

    struct Broken: Sendable, CustomTestStringConvertible {
        let variant: String
        let pointer: String
        let check: String
        var testDescription: String { variant }
    }

    /// One answer per kind of rule the import writes, each breaking it.
    static let broken: [Broken] = [
        Broken(variant: "minimum", pointer: "/id", check: "minimum"),
        Broken(variant: "maximum", pointer: "/stock", check: "maximum"),
        Broken(variant: "minLength", pointer: "/name", check: "lengthMustBeEqualOrGreaterThan"),
        Broken(variant: "maxLength", pointer: "/name", check: "lengthMustBeEqualOrLessThan"),
        Broken(variant: "enum", pointer: "/status", check: "matchWithOneOf"),
        Broken(variant: "minItems", pointer: "/tags", check: "elementsMustBeEqualOrMoreThan"),
        Broken(variant: "maxItems", pointer: "/tags", check: "elementsMustBeEqualOrLessThan"),
        Broken(variant: "required", pointer: "/name", check: "key"),
        Broken(variant: "type", pointer: "/id", check: "type"),
    ]

    @Test(arguments: broken)
    func anAnswerThatBreaksARuleFailsValidationThere(_ broken: Broken) async throws {
        let (scope, folder) = try await Self.inventoryAPI()
        defer { try? FileManager.default.removeItem(at: folder) }
        await InventoryAPI.withAPI(scope) {
            do {
                _ = try await APIManager.call(InventoryAPI.getItem, properties: ["id": 7, "variant": broken.variant], as: Item.self)
                Issue.record("the \(broken.variant) answer passed")
            } catch let error as APIError {
                guard case let .validation(errors) = error.stage else {
                    Issue.record("failed at \(error.stageName): \(error)")
                    return
                }
                #expect(errors.map(\.path) == [broken.pointer], "\(errors)")
                #expect(errors.map(\.check.description) == [broken.check])
            } catch {
                Issue.record("not an APIError: \(error)")
            }
        }
    }

    @Test func stubsAnswerFromTheImportedTemplatesWithoutTheNetwork() async throws {
        let (scope, folder) = try await Self.inventoryAPI(stubs: .immediate)
        defer { try? FileManager.default.removeItem(at: folder) }
        scope.configure { $0.baseURL = URL(string: "http://127.0.0.1:9/unreachable/") }
        try await InventoryAPI.withAPI(scope) {
            // The named example of getItem's response.
            let item = try await APIManager.call(InventoryAPI.getItem, properties: ["id": 1], as: Item.self)
            #expect(item.name == "Widget")
            #expect(item.tags == ["tools"])
            // A template made up from the schema still decodes.
            let created = try await APIManager.call(InventoryAPI.createItem, properties: ["name": "x", "price": 1], as: Item.self)
            #expect(created.id == 1)
        }
    }
}

extension InventoryAPI {
    /// The scope of the current task (each test makes its own), else the default API.
    public static var api: APIScope { InventoryScope.current ?? APIManager.defaultAPI }

    /// Runs `body` with `scope` as the inventory API of the current task.
    static func withAPI<Result: Sendable>(_ scope: APIScope, _ body: () async throws -> Result) async rethrows -> Result {
        try await InventoryScope.$current.withValue(scope) { try await body() }
    }
}

/// The inventory API of the running test.
enum InventoryScope {
    @TaskLocal static var current: APIScope?
}
