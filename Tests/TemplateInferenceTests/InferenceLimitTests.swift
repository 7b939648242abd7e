import Foundation
import TemplateInference
import Testing
import Validator

/// Hostile samples: huge objects, deep nesting, more places than the limit; memory follows the
/// shape, never the number of samples.
@Suite struct InferenceLimitTests {
    @Test func anObjectOfAMillionKeysIsAMapAndKeepsNoKey() throws {
        var members: [String: JSONValue] = [:]
        members.reserveCapacity(1_000_000)
        for index in 0..<1_000_000 { members["k\(index)"] = .int(index) }
        var inferrer = TemplateInferrer(isSecret: testSecrets)
        try inferrer.add(.object(["by_id": .object(members), "count": .int(1_000_000)]))
        #expect(inferrer.placeCount == 2)
        let inferred = inferrer.template()
        #expect(JSONPointer("/by_id")!.resolve(in: inferred.json) == .object([:]))
        #expect(inferred.findings.map(\.kind) == [.mapLike])
        #expect(Validator.checkTemplate(inferred.json).isEmpty)
    }

    @Test func valuesDeeperThanTheLimitAcceptAnything() throws {
        var value = JSONValue.object(["leaf": .int(1)])
        for _ in 0..<200 { value = .object(["down": value]) }
        var inferrer = TemplateInferrer(isSecret: testSecrets)
        try inferrer.add(value)
        #expect(inferrer.placeCount == 128)
        let inferred = inferrer.template()
        #expect(inferred.findings.map(\.kind) == [.tooDeep])
        #expect(inferred.findings[0].pointer.hasPrefix("/down/down/"))
        #expect(Validator.validate(value, against: try Template(inferred.json)).isEmpty)
    }

    @Test func aSampleTenThousandLevelsDeepIsRefusedWithTheParsersReason() {
        let text = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        var inferrer = TemplateInferrer(isSecret: testSecrets)
        #expect {
            try inferrer.add(parsing: Data(text.utf8))
        } throws: { error in
            "\(error)".contains("deeper than 512")
        }
        #expect(inferrer.sampleCount == 0)
    }

    @Test func theShapeStopsGrowingAtThePlaceLimit() throws {
        let members = Dictionary(uniqueKeysWithValues: (0..<20).map { ("key\($0)", JSONValue.int($0)) })
        var inferrer = TemplateInferrer(options: InferenceOptions(maximumPlaces: 10), isSecret: testSecrets)
        try inferrer.add(.object(members))
        try inferrer.add(.object(["other": .object(members)]))
        #expect(inferrer.placeCount == 10)
        let inferred = inferrer.template()
        #expect(inferred.findings.map(\.kind) == [.sizeLimit])
        #expect(Validator.validate(.object(members), against: try Template(inferred.json)).isEmpty)
    }

    @Test func memoryFollowsTheShapeNotTheNumberOfSamples() throws {
        var inferrer = TemplateInferrer(isSecret: testSecrets)
        func sample(_ index: Int) -> JSONValue {
            .object([
                "response": .array(
                    (0..<5).map { element in
                        .object([
                            "id": .int(index * 5 + element), "name": .string("user \(index) \(element)"), "tags": .array([.string("t\(index)")]),
                        ])
                    })
            ])
        }
        try inferrer.add(sample(0))
        let places = inferrer.placeCount
        for index in 1..<2_000 { try inferrer.add(sample(index)) }
        #expect(inferrer.placeCount == places)
        #expect(inferrer.sampleCount == 2_000)
        // A long string is kept cut to the sample length limit.
        var long = TemplateInferrer(options: InferenceOptions(maximumSampleLength: 16), isSecret: testSecrets)
        try long.add(.object(["text": .string(String(repeating: "a", count: 1 << 20))]))
        #expect(JSONPointer("/text")!.resolve(in: long.template().json) == .string(String(repeating: "a", count: 16)))
    }
}
