import APILayer
import DemoServer
import Foundation
import NetOps
import Templater
import TestSupport
import Testing
import Validator

/// Item 11: one hostile body of a million wrong elements gives a bounded error list and a
/// bounded description, both of which say how much more there was.
@Suite("Security: amplification inside the cap", .processGate(.exclusive, minutes: 3))
struct AmplificationTests {
    static let hostileCount = 1_000_000

    /// The validator itself: the first `defaultErrorLimit` errors and one omission counting the rest.
    @Test func aMillionWrongElementsGiveAHundredErrorsAndACount() throws {
        let template = try Template(.object(["items": .array([.int(1)])]))
        let response = JSONValue.object(["items": .array(Array(repeating: .string("x"), count: Self.hostileCount))])
        let errors = Validator.validate(response, against: template)
        #expect(errors.count == Validator.defaultErrorLimit + 1)
        #expect(errors.first?.path == "/items/0")
        #expect(errors[Validator.defaultErrorLimit - 1].path == "/items/99")
        let omission = try #require(errors.last)
        #expect(omission.omittedCount == Self.hostileCount - Validator.defaultErrorLimit)
        #expect(omission.description.contains("\(Self.hostileCount - Validator.defaultErrorLimit) more"))
        // Fail-fast still gives one, and a caller may ask for all.
        #expect(Validator.validate(response, against: template, failFast: true).count == 1)
        #expect(Validator.validate(response, against: template, maxErrors: .max).count == Self.hostileCount)
    }

    /// A custom check that returns a million errors is capped the same way.
    @Test func aCustomCheckIsCappedToo() {
        let policy = ValidationPolicy.custom { _ in
            (0..<Self.hostileCount).map { ValidationError(path: "/\($0)", check: .custom("hostile"), expected: "a", actual: "b") }
        }
        let errors = policy.validate(.null, template: nil)
        #expect(errors.count == Validator.defaultErrorLimit + 1)
        #expect(errors.last?.omittedCount == Self.hostileCount - Validator.defaultErrorLimit)
    }

    /// An `APIError` of a million validation errors has a description of at most 8 KiB and a
    /// bit, which counts what it does not show.
    @Test func theDescriptionOfAMillionErrorsIsBounded() {
        let errors = (0..<Self.hostileCount).map {
            ValidationError(path: "/items/\($0)", check: .type, expected: "number", actual: "string \"x\"")
        }
        let description = APIError(.validation(errors), method: "hostile").description
        #expect(description.utf8.count <= Redaction.textLimit + 200, "\(description.utf8.count)")
        #expect(description.hasPrefix("hostile: validation failed: /items/0: type"))
        #expect(!description.contains("bytes cut]"), "the listing stops before the text limit cuts it")
        let shown = description.components(separatedBy: "; /items/").count
        #expect(description.contains("; … \(Self.hostileCount - shown) more errors not shown"), "\(description.suffix(120))")
    }

    private enum WrongAPI: String, APIMethod {
        case wrong = "hostile/wrong-elements"
        var httpMethod: HTTPMethod { .get }
        var encoding: RequestEncoding { .query }
        var defaultParameters: Parameters { ["count": AmplificationTests.hostileCount] }
    }

    /// End to end, on both engines: the server's million wrong elements give one validation
    /// failure with 100 errors and a count, and a bounded description in the operation's error.
    @Test(arguments: TestEngine.allCases)
    func aHostileBodyFailsWithABoundedError(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-amplification-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let templates = TemplateStore(directory: folder)
        try templates.write(.object(["items": .array([.int(1)])]), for: WrongAPI.wrong.rawValue)
        let scope = APIScope(name: "amplified", configuration: .init(baseURL: server.baseURL, templates: templates, session: engine.session))
        let operation = APIManager.withDefaultAPI(scope) { APIManager.operation(WrongAPI.wrong, as: NoContent.self) }
        let result = await operation.outcome()
        let error = try #require(result.failureValue)
        guard case let .validation(errors) = error.stage else {
            Issue.record("not a validation failure: \(error)")
            return
        }
        #expect(errors.count == Validator.defaultErrorLimit + 1)
        #expect(errors.last?.omittedCount == Self.hostileCount - Validator.defaultErrorLimit)
        #expect(error.description.utf8.count <= Redaction.textLimit + 200)
        #expect((operation.error?.description.utf8.count ?? 0) <= Redaction.textLimit + 300)
        #expect(error.description.contains("/items/99: type"))
        #expect(error.description.hasSuffix("got \(Self.hostileCount - Validator.defaultErrorLimit) more"), "\(error.description.suffix(120))")
    }
}
