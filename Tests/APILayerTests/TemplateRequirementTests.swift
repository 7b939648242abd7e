import APILayer
import Foundation
import JSONCore
import Logging
import NetOps
import Templater
import TestSupport
import Testing
import Validator

/// A missing template fails a method's calls unless the method opts into `.ifTemplateExists`;
/// a missing or invalid template is logged once per API at `warning`.
@Suite("The recipe: template requirement", .timeLimit(.minutes(1)))
struct TemplateRequirementTests {
    struct Answer: Decodable, Sendable {
        let id: Int
    }

    enum Methods: String, APIMethod {
        case strict = "json"
        case lenient = "json-lenient"
        case broken = "json-broken"

        var path: String { "json" }
        var httpMethod: HTTPMethod { .get }
        var encoding: RequestEncoding { .query }
        var defaultParameters: Parameters { [:] }
        var templateRequirement: TemplateRequirement { self == .strict ? .required : .ifTemplateExists }
    }

    /// A scope over an empty template folder (plus `extra` templates), logging into `log`.
    static func scope(log: LogCapture, extra: [String: String] = [:]) async throws -> (APIScope, URL) {
        let server = try await TestServer.get()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("requirement-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in extra { try Data(text.utf8).write(to: folder.appendingPathComponent("\(name).json")) }
        var configuration = APIScope.Configuration(
            baseURL: server.baseURL, templates: TemplateStore(directory: folder), session: TestEngine.nio.makeSession())
        configuration.logger = log.logger()
        return (APIScope(name: "requirement-\(UUID().uuidString.prefix(6))", configuration: configuration), folder)
    }

    @Test func aMissingTemplateFailsARequiredMethodAndIsLoggedOnce() async throws {
        let log = LogCapture()
        let (scope, folder) = try await Self.scope(log: log)
        defer { try? FileManager.default.removeItem(at: folder) }
        for _ in 0..<3 {
            let operation = APIManager.withDefaultAPI(scope) { APIManager.operation(Methods.strict, as: Answer.self) }
            await #expect(throws: APIError.self) { try await operation.run() }
            guard case let .failure(error) = operation.result, case .templateMissing = error.stage else {
                Issue.record("expected templateMissing, got \(String(describing: operation.result))")
                return
            }
        }
        let warnings = log.messages(atLeast: .warning)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("no template \"json\"") == true)
        #expect(warnings.first?.contains("its calls fail") == true)
    }

    @Test func ifTemplateExistsPassesUnvalidatedWithoutOne() async throws {
        let log = LogCapture()
        let (scope, folder) = try await Self.scope(log: log)
        defer { try? FileManager.default.removeItem(at: folder) }
        for _ in 0..<2 {
            let answer = try await APIManager.withDefaultAPI(scope) { try await APIManager.call(Methods.lenient, as: Answer.self) }
            #expect(answer.id == 1)
        }
        let warnings = log.messages(atLeast: .warning)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("not validated") == true)
    }

    /// With its template there, an `.ifTemplateExists` method is validated as any other.
    @Test func ifTemplateExistsValidatesWhenTheTemplateIsThere() async throws {
        let log = LogCapture()
        // DemoServer's `/json` has `"id": 1`: a template wanting a string there refuses it.
        let (scope, folder) = try await Self.scope(log: log, extra: ["json-lenient": #"{"id": "text"}"#])
        defer { try? FileManager.default.removeItem(at: folder) }
        let operation = APIManager.withDefaultAPI(scope) { APIManager.operation(Methods.lenient, as: Answer.self) }
        await #expect(throws: APIError.self) { try await operation.run() }
        guard case let .failure(error) = operation.result, case .validation = error.stage else {
            Issue.record("expected a validation error, got \(String(describing: operation.result))")
            return
        }
        #expect(log.messages(atLeast: .warning).isEmpty)
    }

    /// An invalid template fails the calls whatever the requirement, and is logged once.
    @Test func anInvalidTemplateFailsAndIsLoggedOnce() async throws {
        let log = LogCapture()
        let (scope, folder) = try await Self.scope(log: log, extra: ["json-broken": "{ not json"])
        defer { try? FileManager.default.removeItem(at: folder) }
        for _ in 0..<2 {
            let operation = APIManager.withDefaultAPI(scope) { APIManager.operation(Methods.broken, as: Answer.self) }
            await #expect(throws: APIError.self) { try await operation.run() }
            guard case let .failure(error) = operation.result, case .templateInvalid = error.stage else {
                Issue.record("expected templateInvalid, got \(String(describing: operation.result))")
                return
            }
        }
        let warnings = log.messages(atLeast: .warning)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("is invalid") == true)
    }
}
