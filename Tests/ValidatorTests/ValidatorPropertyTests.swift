import PropertyBased
import Testing
import Validator

/// Responses generated to satisfy a template validate; one mutation of a key, a type or a
/// bound is reported once, at the mutated value's JSON Pointer, by the matching check.
@Suite struct ValidatorPropertyTests {
    static let template = #"""
        {"id": 7, "id-Rules": {"minimum": 1, "maximum": 1000000},
         "name": "ann", "name-Rules": {"lengthMustBeEqualOrGreaterThan": 1, "lengthMustBeEqualOrLessThan": 12},
         "email": "ann@example.com", "email-Rules": {"hasSuffix": "@example.com"},
         "active": true,
         "score": 1.5, "score-Rules": {"minimum": 0, "maximum": 100},
         "role": "user", "role-Rules": {"matchWithOneOf": ["user", "admin", "guest"]},
         "nickname": "a", "nickname-Rules": {"isOptional": true},
         "city": {"id": 1, "id-Rules": {"minimum": 0}, "title": "Oslo"},
         "tags": ["x"], "tags-Rules": {"elementsMustBeEqualOrMoreThan": 1, "elementsMustBeEqualOrLessThan": 5},
         "friends": [{"id": 1, "since": null}]}
        """#

    struct User: Sendable {
        var id: Int
        var name: String
        var mailbox: String
        var active: Bool
        var score: Double
        var role: String
        var nickname: String?
        var cityID: Int
        var tags: [String]
        var friendIDs: [Int]

        var json: JSONValue {
            var members: [String: JSONValue] = [
                "id": .int(id), "name": .string(name), "email": .string(mailbox + "@example.com"),
                "active": .bool(active), "score": score.rounded() == score ? .int(Int(score)) : .double(score),
                "role": .string(role), "city": .object(["id": .int(cityID), "title": .string(name), "extra": .null]),
                "tags": .array(tags.map(JSONValue.string)),
                "friends": .array(friendIDs.map { .object(["id": .int($0), "since": $0.isMultiple(of: 2) ? .int($0) : .string("x")]) }),
            ]
            if let nickname { members["nickname"] = .string(nickname) }
            return .object(members)
        }
    }

    static let users = zip(
        Gen.int(in: 1...1_000_000),
        Gen.lowercaseLetter.string(of: 1...12),
        Gen.lowercaseLetter.string(of: 1...8),
        Gen.bool,
        Gen.int(in: 0...400).map { Double($0) / 4 },
        Gen.int(in: 0...2).map { ["user", "admin", "guest"][$0] },
        Gen.lowercaseLetter.string(of: 0...5).optional,
        Gen.int(in: 0...500),
        Gen.lowercaseLetter.string(of: 1...4).array(of: 1...5),
        Gen.int(in: 1...99).array(of: 0...3)
    ).map {
        User(id: $0.0, name: $0.1, mailbox: $0.2, active: $0.3, score: $0.4, role: $0.5, nickname: $0.6, cityID: $0.7, tags: $0.8, friendIDs: $0.9)
    }

    /// One change to a valid response and the single error it must cause.
    struct Mutation {
        var tokens: [String]
        /// The new value, or `nil` to remove the key.
        var value: JSONValue?
        var rule: String
    }

    /// Every mutation that applies to `user`'s response.
    static func mutations(of user: User) -> [Mutation] {
        var result: [Mutation] = []
        var required: [([String], JSONValue)] = [
            (["id"], .string("7")), (["name"], .int(1)), (["email"], .null), (["active"], .int(1)), (["score"], .bool(true)),
            (["role"], .array([])), (["city"], .array([])), (["city", "id"], .string("1")), (["city", "title"], .bool(false)),
            (["tags"], .object([:])), (["friends"], .string("none")),
        ]
        for (position, _) in user.friendIDs.enumerated() {
            required.append((["friends", String(position)], .int(3)))
            required.append((["friends", String(position), "id"], .bool(true)))
        }
        for (tokens, wrongType) in required {
            if tokens.count == 2, tokens[0] == "friends" {
                result.append(Mutation(tokens: tokens, value: wrongType, rule: "type"))
                continue
            }
            result.append(Mutation(tokens: tokens, value: nil, rule: "key"))
            result.append(Mutation(tokens: tokens, value: wrongType, rule: "type"))
        }
        result.append(Mutation(tokens: ["tags", "0"], value: .int(0), rule: "type"))
        if user.nickname != nil { result.append(Mutation(tokens: ["nickname"], value: .int(2), rule: "type")) }
        result += [
            Mutation(tokens: ["id"], value: .int(0), rule: "minimum"),
            Mutation(tokens: ["id"], value: .int(1_000_001), rule: "maximum"),
            Mutation(tokens: ["name"], value: .string(""), rule: "lengthMustBeEqualOrGreaterThan"),
            Mutation(tokens: ["name"], value: .string(String(repeating: "é", count: 13)), rule: "lengthMustBeEqualOrLessThan"),
            Mutation(tokens: ["email"], value: .string(user.mailbox + "@example.org"), rule: "hasSuffix"),
            Mutation(tokens: ["role"], value: .string("root"), rule: "matchWithOneOf"),
            Mutation(tokens: ["score"], value: .double(-0.25), rule: "minimum"),
            Mutation(tokens: ["score"], value: .double(100.25), rule: "maximum"),
            Mutation(tokens: ["city", "id"], value: .int(-1), rule: "minimum"),
            Mutation(tokens: ["tags"], value: .array([]), rule: "elementsMustBeEqualOrMoreThan"),
            Mutation(tokens: ["tags"], value: .array(Array(repeating: .string("t"), count: 6)), rule: "elementsMustBeEqualOrLessThan"),
        ]
        return result
    }

    @Test func generatedResponsesValidate() async throws {
        let template = try Template(json(Self.template))
        await propertyCheck(count: 300, input: Self.users) { user in
            let errors = Validator.validate(user.json, against: template)
            #expect(errors.isEmpty, "\(errors)")
        }
    }

    @Test func everySingleMutationIsReportedAtItsPointer() async throws {
        let template = try Template(json(Self.template))
        await propertyCheck(count: 500, input: Self.users, Gen.int(in: 0...10_000)) { user, pick in
            let candidates = Self.mutations(of: user)
            let mutation = candidates[pick % candidates.count]
            let mutated = replacing(in: user.json, at: mutation.tokens[...], with: mutation.value)
            let pointer = JSONPointer(tokens: mutation.tokens)
            let errors = Validator.validate(mutated, against: template)
            #expect(errors.map { "\($0.path) \($0.rule)" } == ["\(pointer) \(mutation.rule)"])
            if let value = mutation.value {
                #expect(pointer.resolve(in: mutated) == value)
            } else {
                #expect(pointer.resolve(in: mutated) == nil)
            }
        }
    }

    @Test func mutationsCoverEveryKindOfCheck() {
        let user = User(
            id: 1, name: "a", mailbox: "a", active: true, score: 1, role: "user", nickname: "n",
            cityID: 1, tags: ["t"], friendIDs: [2])
        let rules = Set(Self.mutations(of: user).map(\.rule))
        #expect(
            rules == [
                "key", "type", "minimum", "maximum", "lengthMustBeEqualOrGreaterThan", "lengthMustBeEqualOrLessThan",
                "hasSuffix", "matchWithOneOf", "elementsMustBeEqualOrMoreThan", "elementsMustBeEqualOrLessThan",
            ])
    }
}

/// `document` with the value at `tokens` replaced by `value`, or removed when `value` is `nil`.
private func replacing(in document: JSONValue, at tokens: ArraySlice<String>, with value: JSONValue?) -> JSONValue {
    guard let token = tokens.first else { return value ?? .null }
    switch document {
    case .object(var members):
        let rest = tokens.dropFirst()
        if rest.isEmpty, value == nil {
            members[token] = nil
        } else if let child = members[token] {
            members[token] = replacing(in: child, at: rest, with: value)
        }
        return .object(members)
    case .array(var elements):
        if let position = Int(token), elements.indices.contains(position) {
            elements[position] = replacing(in: elements[position], at: tokens.dropFirst(), with: value)
        }
        return .array(elements)
    default:
        return document
    }
}
