import Testing
import Validator

/// The validation run matches a response object's members to the template's fields in the
/// dictionary's own order, remembering the order met last per template object: whatever it
/// remembers, each element of an array gets exactly the errors it gets when checked alone.
@Suite struct KeyOrderTests {
    static let template = #"""
        [{"id": 1, "id-Rules": {"minimum": 1}, "name": "Ann", "nick": "a", "nick-Rules": {"isOptional": true},
          "city": {"title": "Oslo", "title-Rules": {"lengthMustBeEqualOrGreaterThan": 2}}, "tags": ["x"]}]
        """#

    /// Objects of changing key sets and orders: optional keys absent, required keys absent,
    /// unknown keys, keys of the wrong type, many extra members, built by the parser (which
    /// shares hash-table layouts between objects of one shape) and in code.
    static func elements() -> [JSONValue] {
        var elements: [JSONValue] = []
        for index in 0..<240 {
            var members: [String: JSONValue] = ["id": .int(index % 5), "name": .string("n\(index)"), "city": .object(["title": .string("Rome")])]
            if index % 2 == 0 { members["nick"] = .string("k") }
            if index % 3 == 0 { members["tags"] = .array([.string("t")]) }
            if index % 7 == 0 { members["name"] = nil }
            if index % 11 == 0 { members["city"] = .object(["title": .string("X")]) }
            if index % 13 == 0 { members["extra\(index % 4)"] = .null }
            if index % 17 == 0 { members["id"] = .string("1") }
            if index % 19 == 0 {
                for extra in 0..<40 { members["more\(extra)"] = .int(extra) }
            }
            elements.append(.object(members))
        }
        return elements
    }

    @Test func eachElementGetsTheErrorsItGetsAlone() throws {
        let template = try Template(JSONValue(parsing: Self.template))
        let built = JSONValue.array(Self.elements())
        // Parsed, objects of one shape share their layout; built in code, they do not.
        for response in [built, try JSONValue(parsing: built.serialized())] {
            guard case .array(let elements) = response else { return }
            let together = Validator.validate(response, against: template, maxErrors: .max)
            var expected: [String] = []
            for (index, element) in elements.enumerated() {
                for error in Validator.validate(.array([element]), against: template) {
                    expected.append("/\(index)" + error.path.dropFirst(2) + " \(error.check)")
                }
            }
            #expect(together.map { "\($0.path) \($0.check)" } == expected)
            #expect(!expected.isEmpty)
        }
    }
}
