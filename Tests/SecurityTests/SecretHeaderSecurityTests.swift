import APILayer
import DemoServer
import Foundation
import NetOps
import TestSupport
import Testing
import Validator

/// Credential headers the standard vocabulary did not name — Azure API Management's
/// `Ocp-Apim-Subscription-Key`, Cloudflare's `X-Auth-Key`, `Authentication`, request signatures —
/// stay on their origin across redirects and out of `curl` commands and trace logs; on a
/// cross-origin redirect only the fields a request needs anywhere (`Accept…`, `User-Agent`,
/// trace context, `Range`) follow.
@Suite("Security: credential headers", .timeLimit(.minutes(2)))
struct SecretHeaderSecurityTests {
    struct Echo: Decodable {
        let headers: [String: String]
    }

    /// The headers that carry a key or a signature, each with a secret of its own.
    static func keyHeaders() -> [String: String] {
        let names = ["Ocp-Apim-Subscription-Key", "X-Auth-Key", "Authentication", "X-Signature", "X-Hub-Signature-256"]
        return Dictionary(uniqueKeysWithValues: names.map { ($0, "k3y\(UUID().uuidString.prefix(12))") })
    }

    /// `/redirect/302?to=target` on the shared server.
    static func redirect(to target: URL) async throws -> URL {
        var components = URLComponents(url: try await TestServer.url("redirect/302"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "to", value: target.absoluteString)]
        return components.url!
    }

    @Test(arguments: TestEngine.allCases)
    func onlyTheRequestsPlainNeedsFollowARedirectToAnotherOrigin(_ engine: TestEngine) async throws {
        let secrets = Self.keyHeaders()
        let other = URL(string: "echo", relativeTo: try await OtherOriginServer.get().baseURL)!.absoluteURL
        var headers = secrets
        headers["X-Tenant"] = "tenant-1"
        headers["Accept"] = "application/json"
        headers["User-Agent"] = "apilayer-security-test"
        headers["traceparent"] = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        let operation = DTO.get(try await Self.redirect(to: other), headers: headers).on(engine)
        try await operation.run()
        let echo = try operation.decode(Echo.self)
        for name in secrets.keys { #expect(echo.headers[name.lowercased()] == nil, "\(name) followed to another origin") }
        #expect(echo.headers["x-tenant"] == nil, "a field of the caller's own followed to another origin")
        #expect(echo.headers["accept"] == "application/json")
        #expect(echo.headers["user-agent"] == "apilayer-security-test")
        #expect(echo.headers["traceparent"] == headers["traceparent"])
        for secret in secrets.values { #expect(!operation.cURLDescription.contains(secret), "\(operation.cURLDescription)") }
    }

    @Test(arguments: TestEngine.allCases)
    func aRedirectOnItsOwnOriginKeepsEveryHeader(_ engine: TestEngine) async throws {
        let secrets = Self.keyHeaders()
        var headers = secrets
        headers["X-Tenant"] = "tenant-1"
        let operation = DTO.get(try await Self.redirect(to: try await TestServer.url("echo")), headers: headers).on(engine)
        try await operation.run()
        let echo = try operation.decode(Echo.self)
        for (name, value) in headers { #expect(echo.headers[name.lowercased()] == value, "\(name)") }
    }

    /// A method of an API whose calls carry key headers and a credential inside another field.
    enum KeyedAPI: String, APIMethod {
        case echo
        var httpMethod: HTTPMethod { .get }
        var encoding: RequestEncoding { .query }
        var defaultParameters: Parameters { [:] }
        var validation: ValidationPolicy { .custom { _ in [] } }
        var tokenPlacement: TokenPlacement? { nil }
    }

    /// The trace log of the request's headers and the operation's `curl` command show neither the
    /// key headers' values nor a credential written inside a plain field.
    @Test(arguments: TestEngine.allCases)
    func traceLogsAndCurlShowNoKey(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let capture = LogCapture()
        let scope = APIScope(name: "keyed", configuration: .init(baseURL: server.baseURL, session: engine.session, logger: capture.logger()))
        var headers = Self.keyHeaders()
        let inside = "in5ide\(UUID().uuidString.prefix(10))"
        headers["X-Debug"] = "token=\(inside)"
        let operation = APIManager.withDefaultAPI(scope) { APIManager.operation(KeyedAPI.echo, headers: headers, as: NoContent.self) }
        _ = try await operation.run()
        await operation.telemetryReported()
        #expect(capture.text.contains("x-debug") || capture.text.contains("X-Debug"), "the trace log lists the headers")
        for secret in Array(headers.values.filter { !$0.hasPrefix("token=") }) + [inside] {
            #expect(!capture.text.contains(secret), "log: \(secret)")
            #expect(!operation.cURLDescription.contains(secret), "\(operation.cURLDescription)")
        }
    }

    /// The vocabulary: names ending in `Key`, `Signature` (with a number after it),
    /// `Credential(s)`, and `Authentication` are secret; plain fields are not.
    @Test func theVocabularyCoversKeysAndSignatures() {
        let redaction = Redaction.standard
        for name in Array(Self.keyHeaders().keys) + ["X-Amz-Credential", "Api-Key-V2", "X-Goog-Api-Key"] {
            #expect(redaction.isSecret(header: name), "\(name)")
            #expect(redaction.header(name, value: "v") == Redaction.placeholder, "\(name)")
        }
        for name in ["Accept", "Content-Type", "X-Tenant", "X-Request-ID", "User-Agent", "X-Keyboard"] {
            #expect(!redaction.isSecret(header: name), "\(name)")
        }
        #expect(redaction.header("X-Debug", value: "sent Bearer abc.def") == "sent Bearer <redacted>")
    }
}
