import Foundation
import Mapper
import Testing

/// Codable models from JSON, with key paths and errors that name where decoding stopped.
struct MapperTests {
    struct User: Decodable, Equatable {
        let id: Int
        let firstName: String
        let lastSeen: Date?
        let city: City?
    }

    struct City: Decodable, Equatable {
        let title: String
    }

    static let body = Data(
        #"""
        {"response": {"count": 2, "items": [
            {"id": 1, "first_name": "Ann", "last_seen": 1700000000, "city": {"title": "Oslo"}},
            {"id": 2, "first_name": "Bo", "last_seen": null}
        ]}}
        """#.utf8)

    @Test func mapsAtAKeyPathWithSnakeCaseAndDates() throws {
        let users = try Mapper.map([User].self, from: Self.body, at: "response.items")
        #expect(
            users == [
                User(id: 1, firstName: "Ann", lastSeen: Date(timeIntervalSince1970: 1_700_000_000), city: City(title: "Oslo")),
                User(id: 2, firstName: "Bo", lastSeen: nil, city: nil),
            ])
        #expect(try Mapper.map(Int.self, from: Self.body, at: "response.count") == 2)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let json: String
        let keyPath: String?
        let error: MapperError
        var testDescription: String { error.description }
    }

    @Test(arguments: [
        Case(json: #"{"response": {}}"#, keyPath: "response.items", error: .missingKeyPath("response.items", foundUpTo: "response")),
        Case(
            json: #"{"response": {"items": [{"id": 1}]}}"#, keyPath: "response.items",
            error: .missingKey(path: "response.items.0", key: "firstName")),
        Case(
            json: #"{"response": {"items": [{"id": "1", "first_name": "A"}]}}"#, keyPath: "response.items",
            error: .typeMismatch(path: "response.items.0.id", expected: "Int")),
        Case(
            json: #"{"items": [{"id": null, "first_name": "A"}]}"#, keyPath: "items",
            error: .missingValue(path: "items.0.id", expected: "Int")),
    ])
    func failuresNameTheirPath(_ testCase: Case) {
        #expect(throws: testCase.error) {
            try Mapper.map([User].self, from: Data(testCase.json.utf8), at: testCase.keyPath)
        }
    }

    @Test func notJSON() {
        #expect(throws: MapperError.self) { try Mapper.map(User.self, from: Data("<html>".utf8)) }
        #expect(throws: MapperError.self) { try Mapper.map(User.self, from: Data("<html>".utf8), at: "a") }
    }
}
