import Foundation
import Testing
import Validator

/// The public API used from `@Sendable` contexts: a compiled template is shared by concurrent tasks.
@Suite struct SendableTests {
    @Test func oneTemplateManyTasks() async throws {
        let template = try Template(parsing: Data(#"{"id": 1, "id-Rules": {"minimum": 0}, "tags": ["x"]}"#.utf8))
        let results = await withTaskGroup(of: [ValidationError].self) { group in
            for index in -50..<50 {
                group.addTask { @Sendable in
                    let body = Data(#"{"id": \#(index), "tags": ["a", "b"]}"#.utf8)
                    guard let response = try? JSONValue(parsing: body) else { return [] }
                    return Validator.validate(response, against: template, mask: .all)
                }
            }
            var all: [[ValidationError]] = []
            for await errors in group { all.append(errors) }
            return all
        }
        #expect(results.count == 100)
        #expect(results.filter { !$0.isEmpty }.count == 50)
        #expect(results.joined().allSatisfy { $0.path == "/id" && $0.check == .rule(.minimum) })
    }

    @Test func errorsCrossTasks() async throws {
        let parseError = await Task { @Sendable () -> JSONParseError? in
            do {
                _ = try JSONValue(parsing: "[")
                return nil
            } catch {
                return error as? JSONParseError
            }
        }.value
        #expect(parseError?.kind == .unexpectedEnd)
        let templateErrors = await Task { @Sendable in Validator.checkTemplate(.object(["a-Rules": .object([:])])) }.value
        #expect(templateErrors.map(\.kind) == [.orphanRules])
    }
}
