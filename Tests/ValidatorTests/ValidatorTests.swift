import Testing
import Validator

@Suite struct ValidatorTests {
    static let users = #"""
        {"response": [{"id": 1, "name": "Ann", "city": {"id": 2, "title": "Oslo", "title-Rules": {"lengthMustBeEqualOrGreaterThan": 2}},
                       "photos": [{"url": "a.jpg", "url-Rules": {"hasSuffix": ".jpg"}}]}],
         "count": 1, "count-Rules": {"minimum": 0}}
        """#

    static let cases: [ValidationCase] = [
        ValidationCase(
            "valid nested response", template: users,
            response: #"""
                {"response": [{"id": 1, "name": "A", "city": {"id": 3, "title": "Rome"}, "photos": []},
                              {"id": 2, "name": "B", "city": {"id": 4, "title": "Bern"}, "photos": [{"url": "x.jpg"}, {"url": "y.jpg"}]}],
                 "count": 2}
                """#, expected: []),
        ValidationCase(
            "objects inside arrays are checked", template: users,
            response: #"""
                {"response": [{"id": 1, "name": "A", "city": {"id": 3, "title": "Rome"}, "photos": []},
                              {"id": "2", "name": "B", "city": {"id": 4}, "photos": [{"url": "x.jpg"}, {"url": "y.png"}, {}]}],
                 "count": -1}
                """#,
            expected: [
                "/count minimum", "/response/1/city/title key", "/response/1/id type",
                "/response/1/photos/1/url hasSuffix", "/response/1/photos/2/url key",
            ]),
        ValidationCase(
            "a root array", template: #"[{"id": 1, "id-Rules": {"minimum": 1}}]"#,
            response: #"[{"id": 1}, {"id": 0}, {"x": 1}, 7]"#, expected: ["/1/id minimum", "/2/id key", "/3 type"]),
        ValidationCase("a root array of arrays", template: "[[1]]", response: #"[[1, 2], [3, "4"], 5]"#, expected: ["/1/1 type", "/2 type"]),
        ValidationCase("a root type mismatch", template: "{}", response: "[]", expected: [" type"]),
        ValidationCase("a scalar root", template: #""text""#, response: #""other""#, expected: []),
        ValidationCase(
            "keys with / and ~ are escaped in the pointer", template: #"{"a/b": {"c~d": 1}}"#,
            response: #"{"a/b": {"c~d": "x"}}"#, expected: ["/a~1b/c~0d type"]),
        ValidationCase(
            "an object instead of an array element type", template: #"{"list": [{"a": 1}]}"#,
            response: #"{"list": [[1]]}"#, expected: ["/list/0 type"]),
        ValidationCase(
            "a type error stops the walk into that value", template: #"{"o": {"a": 1, "b": 2}}"#,
            response: #"{"o": "flat"}"#, expected: ["/o type"]),
    ]

    @Test(arguments: cases) func structure(_ testCase: ValidationCase) throws {
        try testCase.run()
    }

    @Test func failFastReturnsOnlyTheFirstError() throws {
        let template = try Template(json(#"{"a": 1, "b": 2, "c": [{"d": 1}]}"#))
        let response = try json(#"{"a": "x", "b": "y", "c": [{"d": "z"}]}"#)
        let all = Validator.validate(response, against: template)
        let first = Validator.validate(response, against: template, failFast: true)
        #expect(all.count == 3)
        #expect(first == [all[0]])
    }

    @Test func failFastInsideRules() throws {
        let template = try Template(json(#"{"s": "x", "s-Rules": {"hasSuffix": "q", "lengthMustBeEqualOrGreaterThan": 5}}"#))
        #expect(Validator.validate(try json(#"{"s": "ab"}"#), against: template).count == 2)
        #expect(Validator.validate(try json(#"{"s": "ab"}"#), against: template, failFast: true).count == 1)
    }

    @Test func descriptionIsOneReadableLine() throws {
        let errors = try Validator.validate(json(#"{"a": {"b": true}}"#), against: json(#"{"a": {"b": 1, "c": "x"}}"#))
        #expect(errors.map(\.description) == ["/a/b: type: expected number, got boolean true", "/a/c: key: expected present, got absent"])
        let root = try Validator.validate(json("null"), against: json("{}"))
        #expect(root.map(\.description) == ["(root): type: expected object, got null"])
    }

    @Test func errorAsJSON() throws {
        let errors = try Validator.validate(json(#"{"a": "x"}"#), against: json(#"{"a": 1}"#))
        #expect(errors.map(\.json) == [try json(#"{"path": "/a", "rule": "type", "expected": "number", "actual": "string \"x\""}"#)])
    }

    @Test func validateWithAnInvalidTemplateThrowsTheTemplateErrors() throws {
        #expect(throws: InvalidTemplateError.self) {
            _ = try Validator.validate(json("{}"), against: json(#"{"a": 1, "a-Rules": {"minimun": 0}}"#))
        }
        do {
            _ = try Validator.validate(json("{}"), against: json(#"{"a-Rules": {}}"#))
            Issue.record("expected a template error")
        } catch let error as InvalidTemplateError {
            #expect(error.errors.map(\.path) == ["/a-Rules"])
        }
    }

    @Test func namesAreReachableThroughTheEnum() {
        let error: Validator.ValidationError = ValidationError(path: "/x", check: .custom("c"), expected: "e", actual: "a")
        let templateError: Validator.TemplateError = TemplateError(path: "", message: "m", kind: .orphanRules)
        #expect(error.description == "/x: c: expected e, got a")
        #expect(templateError.description == "(root): m")
    }
}

@Suite struct ErrorExcerptTests {
    @Test func largeValuesAreQuotedInShort() throws {
        let big = JSONValue.array((0..<100_000).map { .int($0) })
        let errors = try Validator.validate(.object(["a": big]), against: json(#"{"a": "text"}"#))
        #expect(errors.count == 1)
        #expect(errors.first?.actual.hasPrefix("array [0,1,2,3,") == true)
        #expect(errors.first?.actual.hasSuffix("…") == true)
        #expect((errors.first?.actual.count ?? 0) <= 80)
    }

    @Test func shortValuesAreQuotedWhole() throws {
        let errors = try Validator.validate(json(#"{"a": {"b": [1, "x"]}}"#), against: json(#"{"a": 1}"#))
        #expect(errors.map(\.actual) == [#"object {"b":[1,"x"]}"#])
    }
}
