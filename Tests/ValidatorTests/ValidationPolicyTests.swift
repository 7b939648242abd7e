import Testing
import Validator

@Suite struct ValidationPolicyTests {
    static let hasResponse: ValidationPolicy.Check = { response in
        guard case .object(let body) = response, body["response"] != nil else {
            return [ValidationError(path: "/response", check: .custom("hasResponse"), expected: "present", actual: "absent")]
        }
        return []
    }

    @Test func automaticUsesTheTemplate() throws {
        let template = try Template(json(#"{"response": 1}"#))
        #expect(ValidationPolicy.automatic(.all).validate(try json(#"{"response": "x"}"#), template: template).map(\.rule) == ["type"])
        #expect(ValidationPolicy.default.validate(try json(#"{"response": 2}"#), template: template).isEmpty)
    }

    @Test func automaticWithoutATemplatePasses() throws {
        #expect(ValidationPolicy.automatic(.all).validate(try json("[]"), template: nil).isEmpty)
    }

    @Test func customReplacesTheTemplate() throws {
        let template = try Template(json(#"{"response": 1, "other": 2}"#))
        let policy = ValidationPolicy.custom(Self.hasResponse)
        #expect(policy.validate(try json(#"{"response": "not a number"}"#), template: template).isEmpty)
        #expect(policy.validate(try json("{}"), template: template).map(\.description) == ["/response: hasResponse: expected present, got absent"])
    }

    @Test func automaticThenRunsTheClosureOnlyAfterTheTemplatePasses() throws {
        let template = try Template(json(#"{"count": 1}"#))
        let policy = ValidationPolicy.automaticThen(.all, Self.hasResponse)
        #expect(policy.validate(try json(#"{"count": "x"}"#), template: template).map(\.rule) == ["type"])
        #expect(policy.validate(try json(#"{"count": 1}"#), template: template).map(\.rule) == ["hasResponse"])
        #expect(policy.validate(try json(#"{"count": 1, "response": []}"#), template: template).isEmpty)
    }

    @Test func failFastLimitsCustomErrors() throws {
        let policy = ValidationPolicy.custom { _ in
            [
                ValidationError(path: "/a", check: .custom("a"), expected: "x", actual: "y"),
                ValidationError(path: "/b", check: .custom("b"), expected: "x", actual: "y"),
            ]
        }
        #expect(policy.validate(.null, template: nil).count == 2)
        #expect(policy.validate(.null, template: nil, failFast: true).map(\.path) == ["/a"])
    }

    @Test func policiesCrossConcurrencyDomains() async throws {
        let template = try Template(json(#"{"a": 1}"#))
        let policy = ValidationPolicy.automaticThen(.all) { _ in [] }
        let counts = await withTaskGroup(of: Int.self) { group in
            for value in 0..<8 {
                group.addTask { policy.validate(.object(["a": value.isMultiple(of: 2) ? .int(value) : .string("x")]), template: template).count }
            }
            return await group.reduce(0, +)
        }
        #expect(counts == 4)
    }
}
