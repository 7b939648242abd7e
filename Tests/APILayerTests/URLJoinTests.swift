import APILayer
import Foundation
import Testing

/// Joining an endpoint to a base URL, as every method's request does and as
/// `APIManager.url(appending:)` offers it.
@Suite struct URLJoinTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let base: String
        let endpoint: String
        let expected: String
        var testDescription: String { "\(base) + \(endpoint)" }
    }

    static let cases: [Case] = [
        Case(base: "https://api.example.com/method/", endpoint: "users.get", expected: "https://api.example.com/method/users.get"),
        Case(base: "https://api.example.com/method", endpoint: "users.get", expected: "https://api.example.com/method/users.get"),
        Case(base: "https://api.example.com/method/", endpoint: "/users.get", expected: "https://api.example.com/method/users.get"),
        Case(base: "https://api.example.com/method///", endpoint: "///users.get", expected: "https://api.example.com/method/users.get"),
        Case(base: "https://api.example.com", endpoint: "users", expected: "https://api.example.com/users"),
        Case(base: "https://api.example.com/", endpoint: "/users", expected: "https://api.example.com/users"),
        Case(base: "https://api.example.com/method/", endpoint: "repos/a//b/", expected: "https://api.example.com/method/repos/a//b/"),
        Case(
            base: "https://api.example.com/method/", endpoint: "/users.get?v=5&x=%2F", expected: "https://api.example.com/method/users.get?v=5&x=%2F"),
        Case(base: "https://api.example.com/method/?key=1", endpoint: "users.get", expected: "https://api.example.com/method/users.get?key=1"),
        Case(base: "https://api.example.com/method?key=1", endpoint: "users.get?v=5", expected: "https://api.example.com/method/users.get?key=1&v=5"),
        Case(base: "https://api.example.com/method/#top", endpoint: "users", expected: "https://api.example.com/method/users#top"),
        Case(base: "https://api.example.com/method/", endpoint: "users#part", expected: "https://api.example.com/method/users#part"),
        Case(base: "https://api.example.com/v1/", endpoint: "?page=2", expected: "https://api.example.com/v1/?page=2"),
        Case(base: "https://api.example.com/method/", endpoint: "", expected: "https://api.example.com/method/"),
        Case(base: "https://api.example.com/method", endpoint: "//", expected: "https://api.example.com/method"),
        Case(base: "http://127.0.0.1:8080/api/", endpoint: "a/b.json", expected: "http://127.0.0.1:8080/api/a/b.json"),
        Case(
            base: "https://api.example.com/method/", endpoint: "https://other.example/x",
            expected: "https://api.example.com/method/https://other.example/x"),
    ]

    @Test(arguments: cases) func join(_ testCase: Case) throws {
        let base = try #require(URL(string: testCase.base))
        let joined = RequestConstructor.join(base, testCase.endpoint)
        #expect(joined?.absoluteString == testCase.expected)
        // The join never leaves the base's host.
        #expect(joined?.host == base.host)
    }

    @Test func scopeAndManagerJoinToTheirBaseURL() {
        let scope = APIScope(name: "join-\(UUID().uuidString.prefix(8))")
        #expect(scope.url(appending: "users.get") == nil, "no base URL yet")
        scope.configure { $0.baseURL = URL(string: "https://api.example.com/method") }
        #expect(scope.url(appending: "/users.get")?.absoluteString == "https://api.example.com/method/users.get")
        APIManager.withDefaultAPI(scope) {
            #expect(APIManager.url(appending: "friends.get")?.absoluteString == "https://api.example.com/method/friends.get")
        }
    }

    /// A method's request uses the same join.
    @Test func aMethodsRequestUsesTheJoin() throws {
        let built = try RequestConstructor.request(
            for: AdHocMethod("/users.get"), baseURL: URL(string: "https://api.example.com/method?key=1"))
        #expect(built.request.url?.absoluteString == "https://api.example.com/method/users.get?key=1")
    }
}
