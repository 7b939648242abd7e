import APILayer
import DemoServer
import Foundation
import InMemoryTracing
import NetOps
import PropertyBased
import TestSupport
import Testing
import Tracing
import Validator

/// Where a secret can sit in a request or a server's text.
enum SecretPlacement: String, CaseIterable, Sendable {
    case header, query, form, jsonBody, textPair, textQuoted, bearer

    /// The secret names this placement carries: header names for `header`, the Authorization
    /// header for `bearer`, parameter names for the rest.
    var names: [String] {
        switch self {
        case .header: return RedactionSecurityTests.headerNames
        case .bearer: return ["Bearer", "Token", "Basic"]
        default: return RedactionSecurityTests.parameterNames
        }
    }
}

/// Item 5: every secret name, in every placement, never shows in a log line, a span, an error
/// description or a cURL description; server text reaches them escaped.
@Suite("Security: redaction", .processGate(.exclusive, minutes: 3))
struct RedactionSecurityTests {
    static let parameterNames = [
        "access_token", "refresh_token", "id_token", "token", "password", "secret", "client_secret", "api_key", "apikey",
        "client_assertion", "code_verifier", "_password", "x-api-key", "refreshToken", "my_secret",
    ]
    static let headerNames = [
        "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "Api-Key", "Private-Token", "X-Auth-Token",
        "X-Access-Token",
    ]

    /// The characters of a secret, with those that used to end a match early (`:`, `!`, `%`, `+`, `/`, `=`).
    static let alphabet = Array("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789:!%+/=~._-")

    /// Random secrets, for the property.
    static let secrets = Gen.element(of: alphabet).map { $0! }.array(of: 10...24).map { "S3" + String($0) + "q9" }

    /// One random secret, for the network cases (each name × placement gets its own).
    static func randomSecret() -> String {
        "S3" + String((0..<16).map { _ in alphabet.randomElement()! }) + "q9"
    }

    /// The ways a secret may appear in text a redaction sees, for the pure property.
    static func texts(name: String, placement: SecretPlacement, secret: String) -> [String] {
        switch placement {
        case .header: return ["\(name): \(secret)", "headers: {\"\(name)\": \"\(secret)\"}"]
        case .query: return ["GET https://api.example.com/x?a=1&\(name)=\(secret)&b=2"]
        case .form: return ["a=1&\(name)=\(secret)"]
        case .jsonBody: return [#"{"a":1,"\#(name)":"\#(secret)"}"#, #"echo: "{\"\#(name)\":\"\#(secret)\"}""#]
        case .textPair: return ["the server said \(name)=\(secret) was wrong"]
        case .textQuoted: return [#"rejected: "\#(name)": "\#(secret)", more"#]
        case .bearer: return ["Authorization: \(name) \(secret)", "credential was \(name) \(secret) today"]
        }
    }

    /// The pure property: `text(_:)`, `url(_:)`, `body(_:contentType:)`, `headers(_:)` and a
    /// `NetOpsError`'s description, for random secrets in every name × placement.
    @Test func noOutputOfRedactionShowsASecret() async {
        let cases = SecretPlacement.allCases.flatMap { placement in placement.names.map { (placement, $0) } }
        await propertyCheck(count: 400, input: Gen.element(of: cases).map { $0! }, Self.secrets) { pair, secret in
            let (placement, name) = pair
            let redaction = Redaction.standard
            var outputs = Self.texts(name: name, placement: placement, secret: secret).map { redaction.text($0) }
            outputs.append(
                NetOpsError(.transport(code: 1, reason: Self.texts(name: name, placement: placement, secret: secret)[0]), url: nil).description)
            switch placement {
            case .header, .bearer:
                let header = placement == .bearer ? "Authorization" : name
                let value = placement == .bearer ? "\(name) \(secret)" : secret
                outputs.append("\(redaction.headers([header: value]))")
            case .query:
                var components = URLComponents(string: "https://api.example.com/x")!
                components.queryItems = [URLQueryItem(name: "a", value: "1"), URLQueryItem(name: name, value: secret)]
                outputs.append(redaction.url(components.url!))
            case .form:
                var components = URLComponents()
                components.queryItems = [URLQueryItem(name: name, value: secret)]
                outputs.append(redaction.body(Data((components.percentEncodedQuery ?? "").utf8), contentType: "application/x-www-form-urlencoded"))
            case .jsonBody:
                let data = try! JSONSerialization.data(withJSONObject: [name: secret, "note": "x"])
                outputs.append(redaction.body(data, contentType: "application/json"))
            case .textPair, .textQuoted:
                let data = try! JSONSerialization.data(withJSONObject: ["note": Self.texts(name: name, placement: placement, secret: secret)[0]])
                outputs.append(redaction.body(data, contentType: "application/json"))
            }
            for output in outputs {
                #expect(!Self.shows(secret, in: output), "\(placement) \(name): \(output)")
            }
        }
    }

    /// True when `text` holds `secret`, or its percent-encoded or JSON-escaped form.
    static func shows(_ secret: String, in text: String) -> Bool {
        let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? secret
        return text.contains(secret) || text.contains(encoded) || text.contains(secret.replacingOccurrences(of: "/", with: "\\/"))
    }

    /// A method of the hostile API: the echo route answers 400 with the request as text.
    private enum EchoAPI: String, APIMethod {
        case query, form, json
        var path: String { "hostile/echo-error" }
        var httpMethod: HTTPMethod { self == .query ? .get : .post }
        var encoding: RequestEncoding {
            switch self {
            case .query: return .query
            case .form: return .form
            case .json: return .json
            }
        }
        var defaultParameters: Parameters { [:] }
        var validation: ValidationPolicy { .custom { _ in [] } }
        var tokenPlacement: TokenPlacement? { nil }
    }

    /// The network property, on both engines: every name × every placement goes through a call
    /// whose server echoes it back in its error body; the log lines (trace level), the spans,
    /// the error's description and the operation's cURL description never show it.
    @Test(arguments: TestEngine.allCases)
    func noLogSpanErrorOrCommandShowsASecret(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        for placement in SecretPlacement.allCases {
            for name in placement.names {
                let secret = Self.randomSecret()
                let capture = LogCapture()
                let tracer = InMemoryTracer()
                let scope = APIScope(
                    name: "redaction",
                    configuration: .init(baseURL: server.baseURL, session: engine.session, logger: capture.logger(), tracer: tracer))
                let (method, properties, headers) = Self.request(placement: placement, name: name, secret: secret)
                let operation = APIManager.withDefaultAPI(scope) {
                    APIManager.operation(method, properties: properties, headers: headers, as: NoContent.self)
                }
                let result = await operation.outcome()
                await operation.telemetryReported()
                guard case let .failure(error) = result else {
                    Issue.record("\(placement) \(name): the echo route answers 400")
                    continue
                }
                #expect(error.stageName == "server" || error.stageName == "construction", "\(error)")
                let spans = tracer.finishedSpans.map { "\($0.attributes) \(String(describing: $0.status)) \($0.events)" }.joined()
                let outputs = [
                    ("log", capture.text), ("span", spans), ("error", error.description), ("operation error", operation.error?.description ?? ""),
                    ("cURL", operation.cURLDescription),
                ]
                #expect(!capture.text.isEmpty)
                for (output, text) in outputs {
                    #expect(!Self.shows(secret, in: text), "\(engine) \(placement) \(name) \(output): \(text)")
                }
            }
        }
    }

    private static func request(placement: SecretPlacement, name: String, secret: String) -> (EchoAPI, Parameters, [String: String]) {
        switch placement {
        case .header: return (.query, [:], [name: secret])
        case .bearer: return (.query, [:], ["Authorization": "\(name) \(secret)"])
        case .query: return (.query, [name: secret], [:])
        case .form: return (.form, [name: secret, "a": "1"], [:])
        case .jsonBody: return (.json, [name: secret, "a": 1], [:])
        case .textPair: return (.json, ["note": "the server said \(name)=\(secret) was wrong"], [:])
        case .textQuoted: return (.json, ["note": #"rejected: "\#(name)": "\#(secret)", more"#], [:])
        }
    }

    /// Server text with CR, LF, an escape sequence, U+2028 and NUL reaches one log line and the
    /// span's status escaped: no forged line, no raw control character.
    @Test(arguments: TestEngine.allCases)
    func serverTextCannotForgeALogLine(_ engine: TestEngine) async throws {
        enum ForgeAPI: String, APIMethod {
            case forge = "hostile/forge"
            var httpMethod: HTTPMethod { .get }
            var encoding: RequestEncoding { .query }
            var defaultParameters: Parameters { [:] }
            var validation: ValidationPolicy { .custom { _ in [] } }
        }
        let server = try await TestServer.get()
        let capture = LogCapture()
        let tracer = InMemoryTracer()
        let scope = APIScope(
            name: "forge", configuration: .init(baseURL: server.baseURL, session: engine.session, logger: capture.logger(), tracer: tracer))
        let operation = APIManager.withDefaultAPI(scope) { APIManager.operation(ForgeAPI.forge, as: NoContent.self) }
        let result = await operation.outcome()
        await operation.telemetryReported()
        let error = try #require(result.failureValue)
        let messages = capture.messages(atLeast: .trace)
        let failed = try #require(messages.first { $0.hasPrefix("call failed") })
        let texts = [error.description, failed] + tracer.finishedSpans.compactMap { $0.status?.message }
        #expect(texts.count >= 3)
        for text in texts {
            #expect(text.contains("FORGED LOG LINE"), "\(text)")
            #expect(!text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x2028 }, "\(text.debugDescription)")
            #expect(text.contains(#"\r\n"#) && text.contains(#"\u{1B}"#))
        }
    }

    /// Bearer and friends: the whole credential goes, whatever characters it holds.
    @Test(arguments: ["abc:def", "a!b!c", "x%2Fy%3D", "p+q/r=s", "tok~en.1-2_3"])
    func aCredentialAfterItsSchemeIsRedactedWhole(_ credential: String) {
        for scheme in ["Bearer", "bearer", "Basic", "Token", "Digest"] {
            let text = Redaction.standard.text("sent \(scheme) \(credential) then")
            #expect(text == "sent \(scheme) \(Redaction.placeholder) then", "\(text)")
        }
    }

    /// A hostile text gigabytes long would be cut before any pattern runs: the result is bounded
    /// and says how much was cut.
    @Test func aLongTextIsCutWithANote() {
        let long = "token=abc " + String(repeating: "x", count: 1_000_000)
        let text = Redaction.standard.text(long)
        #expect(text.utf8.count < Redaction.textLimit + 100)
        #expect(text.hasSuffix("more bytes cut]"))
        #expect(text.hasPrefix("token=<redacted>"))
    }
}

extension APIOperation {
    /// Runs the operation and returns its result instead of throwing.
    func outcome() async -> Result<Model, APIError> {
        do { return .success(try await run()) } catch { return .failure(error) }
    }
}

extension Result {
    /// The error of a failure.
    var failureValue: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
