import Foundation
import TemplateInference
import Testing
import Validator

/// The secret vocabulary the tests use: a few of the standard names.
let testSecrets: @Sendable (String) -> Bool = { ["access_token", "password", "token", "secret"].contains($0.lowercased()) }

/// Infers a template from JSON texts.
func infer(_ samples: [String], options: InferenceOptions = InferenceOptions()) throws -> InferredTemplate {
    var inferrer = TemplateInferrer(options: options, isSecret: testSecrets)
    for sample in samples { try inferrer.add(parsing: Data(sample.utf8)) }
    return inferrer.template()
}

/// The rules the template gives the key at `pointer` (its parent object's `<key>-Rules`).
func rules(_ template: JSONValue, _ pointer: String) -> [String: JSONValue] {
    var tokens = JSONPointer(pointer)!.tokens
    let key = tokens.removeLast()
    guard case let .object(parent)? = JSONPointer(tokens: tokens).resolve(in: template),
        case let .object(rules)? = parent[key + "-Rules"]
    else { return [:] }
    return rules
}

@Suite struct TemplateInferrerTests {
    @Test func aKeyAbsentFromSomeSamplesIsOptionalAndOneAlwaysThereIsRequired() throws {
        let inferred = try infer([#"{"id": 1, "nick": "a"}"#, #"{"id": 2}"#])
        #expect(rules(inferred.json, "/nick")["isOptional"] == .bool(true))
        #expect(rules(inferred.json, "/id")["isOptional"] == nil)
        #expect(inferred.findings.isEmpty)
    }

    @Test func nullBesideOtherValuesIsNullable() throws {
        let inferred = try infer([#"{"body": null}"#, #"{"body": "text"}"#, #"{"body": "more"}"#])
        #expect(rules(inferred.json, "/body") == ["isNullable": .bool(true), "lengthMustBeEqualOrGreaterThan": .int(1)])
        #expect(JSONPointer("/body")!.resolve(in: inferred.json) == .string("text"))
    }

    @Test func aKeyOnlyEverNullAcceptsAnyValue() throws {
        let inferred = try infer([#"{"closed_at": null}"#, #"{"closed_at": null}"#])
        #expect(inferred.json == .object(["closed_at": .null]))
    }

    @Test func arrayElementsMergeIntoOneElementAndNullElementsAreAllowed() throws {
        let inferred = try infer([#"{"items": [{"a": 1, "b": "x"}, null, {"a": 2}]}"#])
        #expect(rules(inferred.json, "/items")["elementsMayBeNull"] == .bool(true))
        #expect(rules(inferred.json, "/items/0/b")["isOptional"] == .bool(true))
        #expect(rules(inferred.json, "/items/0/a")["isOptional"] == nil)
        #expect(rules(inferred.json, "/items/0/a")["minimum"] == .int(0))
    }

    @Test func nothingIsTightenedFromOneSampleAlone() throws {
        let inferred = try infer([#"{"name": "Anna", "age": 30}"#])
        #expect(rules(inferred.json, "/name") == ["isOptional": .bool(true)])
        #expect(rules(inferred.json, "/age") == ["isOptional": .bool(true)])
        // With the threshold at one, a single sample's keys are required, and still no rule comes.
        let single = try infer([#"{"name": "Anna", "age": 30}"#], options: InferenceOptions(requiredAfter: 1))
        #expect(single.json == .object(["name": .string("Anna"), "age": .int(30)]))
    }

    @Test func rulesNeedEveryValueToSupportThem() throws {
        let inferred = try infer([#"{"n": 3, "s": "a"}"#, #"{"n": -1, "s": ""}"#, #"{"n": 0, "s": "b"}"#])
        #expect(rules(inferred.json, "/n")["minimum"] == nil)
        #expect(rules(inferred.json, "/s")["lengthMustBeEqualOrGreaterThan"] == nil)
    }

    struct OneOfCase: Sendable, CustomTestStringConvertible {
        var name: String
        var values: [String]
        var options = InferenceOptions()
        var expected: [String]?
        var testDescription: String { name }
    }

    @Test(arguments: [
        OneOfCase(name: "two values over 20 samples", values: (0..<20).map { $0 % 3 == 0 ? "closed" : "open" }, expected: ["closed", "open"]),
        OneOfCase(name: "19 samples are too few", values: (0..<19).map { $0 % 2 == 0 ? "closed" : "open" }, expected: nil),
        OneOfCase(name: "9 distinct values are too many", values: (0..<40).map { "v\($0 % 9)" }, expected: nil),
        OneOfCase(
            name: "thresholds are options", values: ["a", "b", "a", "b", "a"],
            options: InferenceOptions(oneOfMaximumValues: 2, oneOfMinimumSamples: 5), expected: ["a", "b"]),
        OneOfCase(name: "long strings are free text", values: (0..<30).map { _ in String(repeating: "t", count: 65) }, expected: nil),
        OneOfCase(
            name: "anonymized values are never listed", values: (0..<30).map { $0 % 2 == 0 ? "x" : "y" },
            options: InferenceOptions(anonymize: true), expected: nil),
    ])
    func matchWithOneOfNeedsFewValuesOverManySamples(_ test: OneOfCase) throws {
        let inferred = try infer(test.values.map { #"{"state": "\#($0)"}"# }, options: test.options)
        #expect(rules(inferred.json, "/state")["matchWithOneOf"] == test.expected.map { .array($0.map(JSONValue.string)) })
    }

    @Test func mixedTypesAreReportedNotGuessed() throws {
        let inferred = try infer([#"{"items": [{"id": 1}, {"id": "2"}, {"id": 3}]}"#])
        #expect(JSONPointer("/items/0/id")!.resolve(in: inferred.json) == .null)
        #expect(
            inferred.findings.map(\.description) == [
                "/items/*/id: mixedTypes: number in 2 values, string in 1 value: any value passes here (the template holds null)"
            ])
    }

    @Test func samplesOfAnotherTopLevelTypeAreRefusedAndNothingIsMerged() throws {
        var inferrer = TemplateInferrer(isSecret: testSecrets)
        try inferrer.add(parsing: Data(#"{"a": 1}"#.utf8))
        #expect(throws: InferenceError.topLevelTypeMismatch(expected: .object, got: .array)) {
            try inferrer.add(parsing: Data("[1]".utf8))
        }
        #expect(inferrer.sampleCount == 1)
        #expect(throws: InferenceError.self) { try inferrer.add(parsing: Data("{nope".utf8)) }
        #expect(inferrer.template().json == .object(["a": .int(1), "a-Rules": .object(["isOptional": .bool(true)])]))
    }

    @Test func noValueOfASecretKeyIsEverWritten() throws {
        let samples = (0..<25).map { index in
            #"{"access_token": "tok-\#(index % 2)-secret", "user": {"password": "hunter\#(index % 2)", "name": "Ann"}, "pin": 1234, "token": {"value": "abc\#(index % 2)", "ttl": 60}}"#
        }
        let inferred = try infer(samples)
        let text = String(decoding: inferred.json.serialized(), as: UTF8.self)
        for secret in ["tok-", "hunter", "abc0", "abc1", "60"] { #expect(!text.contains(secret), "\(secret) in \(text)") }
        #expect(JSONPointer("/access_token")!.resolve(in: inferred.json) == .string("xxxxxxxxxxxx"))
        #expect(JSONPointer("/token/ttl")!.resolve(in: inferred.json) == .int(0))
        #expect(rules(inferred.json, "/user/password")["matchWithOneOf"] == nil)
        // Not a secret: its value is a sample's.
        #expect(JSONPointer("/user/name")!.resolve(in: inferred.json) == .string("Ann"))
    }

    @Test func anonymizeWritesPlaceholdersOfTheSameLength() throws {
        let inferred = try infer([#"{"email": "ann@example.com", "names": ["Zoë", "Bo"]}"#], options: InferenceOptions(anonymize: true))
        #expect(JSONPointer("/email")!.resolve(in: inferred.json) == .string("xxxxxxxxxxxxxxx"))
        #expect(JSONPointer("/names/0")!.resolve(in: inferred.json) == .string("xxx"))
    }

    @Test func everySampleMergedPassesTheTemplate() throws {
        let samples = [
            #"{"page": 1, "items": [{"id": 1, "tags": ["a"], "owner": {"login": "x"}}, {"id": 2, "tags": [], "owner": null}]}"#,
            #"{"page": 2, "items": [], "next": "https://x/3"}"#,
            #"{"page": 3, "items": [{"id": 9, "tags": ["b", null], "extra": true}, null], "next": null}"#,
            #"{"page": 4, "items": [{"id": 10, "tags": ["c"], "owner": {"login": "", "id": 3}}]}"#,
        ]
        let inferred = try infer(samples, options: InferenceOptions(requiredAfter: 1, ruleMinimumSamples: 1))
        let template = try Template(inferred.json)
        for sample in samples {
            #expect(Validator.validate(try JSONValue(parsing: sample), against: template).isEmpty, "\(sample)")
        }
        // The rules that are there are the ones the samples support.
        #expect(rules(inferred.json, "/next") == ["isOptional": .bool(true), "isNullable": .bool(true), "lengthMustBeEqualOrGreaterThan": .int(1)])
        #expect(rules(inferred.json, "/items/0/owner/login")["lengthMustBeEqualOrGreaterThan"] == nil)
    }

    @Test func aKeyNamedLikeRulesIsLeftOutAndReported() throws {
        let inferred = try infer([#"{"a-Rules": 1, "b": 2}"#, #"{"a-Rules": 1, "b": 2}"#])
        #expect(inferred.json == .object(["b": .int(2), "b-Rules": .object(["minimum": .int(0)])]))
        #expect(inferred.findings.map(\.kind) == [.rulesKey])
        #expect(Validator.checkTemplate(inferred.json).isEmpty)
    }

    @Test func nullElementsOfATopLevelArrayAreReported() throws {
        let inferred = try infer(["[1, null]"])
        #expect(inferred.json == .array([.null]))
        #expect(inferred.findings.map(\.kind) == [.notSayable])
    }

    @Test func objectsInAnyKeyOrderAreCountedRight() throws {
        // Elements parsed from one document share a key order; the others come in orders of
        // their own, with keys added and missing on the way.
        let page = "[" + (0..<40).map { #"{"id": \#($0), "name": "n\#($0)", "tags": ["t"]}"# }.joined(separator: ", ") + "]"
        var inferrer = TemplateInferrer(isSecret: testSecrets)
        try inferrer.add(parsing: Data(page.utf8))
        try inferrer.add(parsing: Data(#"[{"name": "x", "id": 1, "extra": true}, {"tags": [], "id": 2, "name": "y"}, {"id": 3}]"#.utf8))
        try inferrer.add(parsing: Data(#"[{"id": null, "name": "z", "tags": ["u"]}]"#.utf8))
        let template = inferrer.template().json
        #expect(rules(template, "/0/id") == ["isNullable": .bool(true), "minimum": .int(0)])
        #expect(rules(template, "/0/name")["isOptional"] == .bool(true))
        #expect(rules(template, "/0/tags")["isOptional"] == .bool(true))
        #expect(rules(template, "/0/extra")["isOptional"] == .bool(true))
        #expect(inferrer.placeCount == 6)
    }
}
