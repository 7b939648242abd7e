import APILayer
import Foundation
import NetOps
import Testing

/// Checked and holding: an API method's request never leaves its API's base URL, whatever its
/// path values or its endpoint say.
@Suite("Security: recipe URLs")
struct RecipeURLTests {
    private enum HostileAPI: String, APIMethod {
        case item = "items/get"
        case absolute = "https://attacker.example/steal"

        var httpMethod: HTTPMethod { .get }
        var encoding: RequestEncoding { .query }
        var defaultParameters: Parameters { [:] }

        var path: String {
            switch self {
            case .item: return "items/{id}"
            case .absolute: return rawValue
            }
        }
    }

    private static let base = URL(string: "https://api.example.com/v1/")!

    @Test(arguments: ["../admin", "%2e%2e", "%2E%2E/x", "..%2f", "a/../../b", "//attacker.example/x", "?x#y", "@attacker.example"])
    func aPathValueStaysOneSegmentUnderTheBaseURL(_ value: String) throws {
        let built = try RequestConstructor.request(for: HostileAPI.item, properties: ["id": value], baseURL: Self.base)
        let url = try #require(built.request.url)
        #expect(url.host == "api.example.com")
        let path = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath)
        #expect(path.hasPrefix("/v1/items/"))
        #expect(!path.dropFirst("/v1/items/".count).contains("/"), "\(path)")
        #expect(url.query == nil)
    }

    @Test(arguments: [".", ".."])
    func aDotSegmentValueIsRefusedBeforeAnythingIsSent(_ value: String) {
        #expect(throws: APIError.self) {
            try RequestConstructor.request(for: HostileAPI.item, properties: ["id": value], baseURL: Self.base)
        }
    }

    @Test func anAbsoluteEndpointStaysUnderTheBaseURL() throws {
        let built = try RequestConstructor.request(for: HostileAPI.absolute, baseURL: Self.base)
        let url = try #require(built.request.url)
        #expect(url.host == "api.example.com")
        #expect(url.absoluteString.hasPrefix("https://api.example.com/v1/"))
    }
}
