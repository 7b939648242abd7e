import APILayer
import Foundation
import InMemoryTracing
import NetOps
import TestSupport
import Testing
import Tracing
import Validator

/// A secret in a URL's path — a `{token}` placeholder, a webhook's key, a bot token in the base
/// URL — is hidden as a secret query parameter is: never in a span name or attribute, a log
/// line, an error text or a `curl` command.
@Suite("Security: secrets in URL paths", .timeLimit(.minutes(2)))
struct PathSecretTests {
    /// A webhook whose path holds its secret in a placeholder named like a credential.
    enum HookAPI: String, APIMethod {
        case send = "hooks.send"
        var path: String { "hooks/{id}/{token}/send" }
        var httpMethod: HTTPMethod { .get }
        var encoding: RequestEncoding { .query }
        var defaultParameters: Parameters { [:] }
        var validation: ValidationPolicy { .custom { _ in [] } }
        var tokenPlacement: TokenPlacement? { nil }
    }

    /// A secret of letters and digits, the same percent-encoded.
    static func secret() -> String { "Sk" + UUID().uuidString.replacingOccurrences(of: "-", with: "") }

    /// A raw server that answers every request `500` with its request line in the body, as a
    /// server's error page may.
    static func echoingServer() async throws -> RecordingHTTPServer {
        try await RecordingHTTPServer.start { request in
            let body = "no route for \(request.requestLine)"
            return "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        }
    }

    /// Every text a call's telemetry, errors and description produced, by where it came from.
    static func outputs<Model>(
        of operation: APIOperation<Model>, error: APIError?, capture: LogCapture, tracer: InMemoryTracer
    ) -> [(String, String)] {
        let spans = tracer.finishedSpans.map { span in
            "\(span.operationName) \(span.attributes) \(String(describing: span.status)) \(span.events)"
        }
        return [
            ("spans", spans.joined(separator: "\n")), ("log", capture.text), ("error", error?.description ?? ""),
            ("operation error", operation.error?.description ?? ""), ("cURL", operation.cURLDescription),
        ]
    }

    /// A placeholder named like a credential (`{token}`) is hidden by default, wherever the call
    /// shows its URL or the server's answer.
    @Test(arguments: TestEngine.allCases)
    func aSecretPlaceholdersValueShowsNowhere(_ engine: TestEngine) async throws {
        let server = try await Self.echoingServer()
        let secret = Self.secret()
        let capture = LogCapture()
        let tracer = InMemoryTracer()
        let scope = APIScope(
            name: "hooks",
            configuration: .init(
                baseURL: URL(string: "http://127.0.0.1:\(server.port)/api/")!, session: engine.session, logger: capture.logger(),
                tracer: tracer))
        let operation = APIManager.withDefaultAPI(scope) {
            APIManager.operation(HookAPI.send, properties: ["id": "T0123", "token": secret], as: NoContent.self)
        }
        let result = await operation.outcome()
        await operation.telemetryReported()
        let requests = server.requests
        await server.stop()
        #expect(requests.first?.requestLine.contains(secret) == true, "the secret goes to the server, where it belongs")
        let error = result.failureValue
        #expect(error?.stageName == "server")
        #expect(!capture.text.isEmpty)
        #expect(tracer.finishedSpans.contains { $0.operationName == "GET /api/hooks/{id}/{token}/send" })
        for (output, text) in Self.outputs(of: operation, error: error, capture: capture, tracer: tracer) {
            #expect(!text.contains(secret), "\(engine) \(output): \(text)")
        }
        #expect(operation.cURLDescription.contains("/hooks/T0123/"), "a plain segment stays readable")
    }

    /// A bot token in the base URL (Telegram's `/bot<id>:<secret>/`), declared once as a path
    /// pattern of the scope's redaction: no span name or attribute, log line, error text or
    /// `curl` command shows it, and the server's page that echoes the path does not bring it
    /// back.
    @Test(arguments: TestEngine.allCases)
    func aDeclaredSecretSegmentOfTheBaseURLShowsNowhere(_ engine: TestEngine) async throws {
        enum BotAPI: String, APIMethod {
            case sendMessage
            var httpMethod: HTTPMethod { .get }
            var encoding: RequestEncoding { .query }
            var defaultParameters: Parameters { [:] }
            var validation: ValidationPolicy { .custom { _ in [] } }
            var tokenPlacement: TokenPlacement? { nil }
        }
        let server = try await Self.echoingServer()
        let secret = Self.secret()
        let capture = LogCapture()
        let tracer = InMemoryTracer()
        let scope = APIScope(
            name: "bot",
            configuration: .init(
                baseURL: URL(string: "http://127.0.0.1:\(server.port)/bot123456:\(secret)/")!, session: engine.session,
                logger: capture.logger(), tracer: tracer, redaction: Redaction(paths: ["/bot{secret}"])))
        let operation = APIManager.withDefaultAPI(scope) {
            APIManager.operation(BotAPI.sendMessage, properties: ["chat_id": 42, "text": "hello"], as: NoContent.self)
        }
        let result = await operation.outcome()
        await operation.telemetryReported()
        await server.stop()
        let error = result.failureValue
        #expect(error?.stageName == "server")
        #expect(tracer.finishedSpans.contains { $0.operationName == "GET /bot<redacted>/sendMessage" })
        for (output, text) in Self.outputs(of: operation, error: error, capture: capture, tracer: tracer) {
            #expect(!text.contains(secret), "\(engine) \(output): \(text)")
        }
        #expect(operation.cURLDescription.contains("/bot<redacted>/sendMessage?"), "\(operation.cURLDescription)")
    }

    /// A plain NetOps operation whose redaction declares a webhook's path: its `curl` command and
    /// its error hide the key; a refused connection's error text too.
    @Test(arguments: TestEngine.allCases)
    func aPlainOperationHidesItsDeclaredPath(_ engine: TestEngine) async throws {
        let secret = Self.secret()
        let port = try unusedPort()
        let operation = DTO.get(URL(string: "http://127.0.0.1:\(port)/services/T0/B0/\(secret)?x=1")!).on(engine)
        operation.redaction = Redaction(paths: ["services/*/*/{secret}"])
        _ = try? await operation.run()
        let error = try #require(operation.error)
        #expect(!error.description.contains(secret), "\(error)")
        #expect(error.description.contains("/services/T0/B0/<redacted>"), "\(error)")
        #expect(!operation.cURLDescription.contains(secret), "\(operation.cURLDescription)")
    }

    /// What a pattern matches, without a network: anchored and anywhere, a prefix before the
    /// secret, a placeholder left alone, every output of the redaction.
    @Test func patternsHideWhatTheyDeclareAndNothingElse() {
        let redaction = Redaction(paths: ["/bot{secret}", "api/webhooks/*/{secret}", "no-marker/*"])
        #expect(redaction.pathPatterns == ["/bot{secret}", "api/webhooks/*/{secret}"])
        let bot = URL(string: "https://api.telegram.org/bot12:AAE-x_y/getMe?chat=1")!
        #expect(redaction.url(bot) == "https://api.telegram.org/bot<redacted>/getMe?chat=1")
        #expect(redaction.urlWithoutQuery(bot) == "https://api.telegram.org/bot<redacted>/getMe")
        #expect(redaction.path("/v1/bottles/7") == "/v1/bottles/7", "anchored: only the first segment")
        let hook = URL(string: "https://discord.com/api/webhooks/123/tok3nValue/slack")!
        #expect(redaction.url(hook) == "https://discord.com/api/webhooks/123/<redacted>/slack")
        #expect(redaction.path("/api/webhooks/{id}/{token}") == "/api/webhooks/{id}/{token}", "a template's placeholder is a name")
        #expect(
            redaction.text("GET https://discord.com/api/webhooks/123/tok3nValue failed")
                == "GET https://discord.com/api/webhooks/123/<redacted> failed")
        let bound = redaction.bound(to: hook)
        #expect(bound.text("no route for /api/webhooks/123/tok3nValue") == "no route for /api/webhooks/123/<redacted>")
        #expect(Redaction.standard.url(hook) == hook.absoluteString, "nothing declared, nothing hidden")
    }
}
