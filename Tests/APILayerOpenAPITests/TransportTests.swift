import APILayer
import APILayerOpenAPI
import DemoServer
import Foundation
import HTTPTypes
import NetOps
import OpenAPIImport
import OpenAPIRuntime
import Synchronization
import Templater
import TestSupport
import Testing
import Validator

/// The client swift-openapi-generator wrote from `inventory.yaml` (committed under Generated/),
/// over `APILayerTransport` on both engines, against DemoServer's inventory routes, with
/// `TemplateValidationMiddleware` checking its answers against the templates imported from the
/// same description.
/// Holds the process gate shared: its calls park operations (token refresh), which a test that
/// releases every parked operation of the process must not meet.
@Suite(.processGate(.shared, minutes: 5))
struct TransportTests {
    /// A client of a fresh realm, its scope and the templates' folder.
    struct Setup {
        let client: Client
        let scope: APIScope
        let server: DemoServer
        let realm: String
        let folder: URL
    }

    static func setUp(_ engine: TestEngine, validating: Bool = true, configuration: APILayerTransport.Configuration = .init()) async throws
        -> Setup
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-openapi-\(UUID().uuidString)")
        let specURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../OpenAPIImportTests/Fixtures/inventory.yaml").standardizedFileURL
        let description = try OpenAPIDescription.load(contentsOf: specURL, maxBytes: 1 << 20)
        _ = try TemplateFileWriter.write(OpenAPIImporter().operations(in: description), to: folder)
        let server = try await TestServer.get()
        let realm = "openapi-\(UUID().uuidString)"
        let baseURL = server.baseURL.appendingPathComponent("inventory/\(realm)/", isDirectory: true)
        let scope = APIScope(name: "inventory")
        scope.configure {
            $0.baseURL = baseURL
            $0.session = engine.session
            $0.retryPolicy = RetryPolicy.none
        }
        scope.configureAuthentication(
            authenticator: OAuthClientCredentialsAuthenticator(
                tokenURL: server.tokenURL(realm: realm), clientID: DemoServer.clientCredentials.id,
                clientSecret: DemoServer.clientCredentials.secret))
        let middlewares: [any ClientMiddleware] = validating ? [TemplateValidationMiddleware(templates: TemplateStore(directory: folder))] : []
        let client = Client(
            serverURL: baseURL, transport: APILayerTransport(scope: scope, configuration: configuration), middlewares: middlewares)
        return Setup(client: client, scope: scope, server: server, realm: realm, folder: folder)
    }

    @Test(arguments: TestEngine.allCases)
    func aGeneratedClientRunsOverEitherEngine(_ engine: TestEngine) async throws {
        let setup = try await Self.setUp(engine)
        defer { try? FileManager.default.removeItem(at: setup.folder) }
        let item = try await setup.client.getItem(path: .init(id: 7)).ok.body.json
        #expect(item.value2.id == 7)
        #expect(item.value1.name == "Item 7")
        #expect(item.value2.status == .reserved)  // 7 % 3 of available, reserved, sold

        let page = try await setup.client.listItems(query: .init(limit: 3)).ok.body.json
        #expect(page.items.map(\.value2.id) == [1, 2, 3])

        let created = try await setup.client.createItem(body: .json(.init(name: "Rake", price: 12.5, tags: ["garden"]))).created.body.json
        #expect(created.value1.name == "Rake")
        #expect(created.value2.tags == ["garden"])

        // 204 without a body: nothing to validate.
        _ = try await setup.client.deleteItem(path: .init(id: created.value2.id)).noContent

        // A status the operation does not accept still reaches the generated code.
        let missing = try await setup.client.getItem(path: .init(id: 0))
        guard case let .notFound(problem) = missing else {
            Issue.record("expected 404, got \(missing)")
            return
        }
        #expect(try problem.body.json.message == "Not Found")
    }

    @Test(arguments: TestEngine.allCases)
    func theMiddlewareRefusesAnAnswerThatBreaksItsTemplate(_ engine: TestEngine) async throws {
        let setup = try await Self.setUp(engine)
        defer { try? FileManager.default.removeItem(at: setup.folder) }
        for (variant, check, path) in [
            ("maximum", "maximum", "/stock"), ("enum", "matchWithOneOf", "/status"), ("maxItems", "elementsMustBeEqualOrLessThan", "/tags"),
        ] {
            do {
                _ = try await setup.client.getItem(path: .init(id: 7), query: .init(variant: variant))
                Issue.record("\(variant) passed")
            } catch let error as ClientError {
                let failure = try #require(error.underlyingError as? TemplateValidationFailure, "\(error)")
                #expect(failure.operationID == "getItem")
                #expect(failure.errors.map(\.check.description) == [check])
                #expect(failure.errors.map(\.path) == [path])
            }
        }
        // Without the middleware the generated code decodes the same answer happily: these are
        // the checks it leaves out.
        let unchecked = try await Self.setUp(engine, validating: false)
        defer { try? FileManager.default.removeItem(at: unchecked.folder) }
        let item = try await unchecked.client.getItem(path: .init(id: 7), query: .init(variant: "maximum")).ok.body.json
        #expect(item.value2.stock == 1001)
    }

    @Test func anOperationWithoutATemplateFailsUnlessTheMiddlewareIsToldToLetItPass() async throws {
        let setup = try await Self.setUp(.urlSession)
        defer { try? FileManager.default.removeItem(at: setup.folder) }
        try FileManager.default.removeItem(at: setup.folder.appendingPathComponent("getItem.json"))
        do {
            _ = try await setup.client.getItem(path: .init(id: 7))
            Issue.record("an answer without a template passed")
        } catch let error as ClientError {
            #expect(
                error.underlyingError as? TemplateValidationFailure == TemplateValidationFailure(operationID: "getItem", reason: .templateMissing))
        }
        let lenient = Client(
            serverURL: try #require(setup.scope.configuration.baseURL), transport: APILayerTransport(scope: setup.scope),
            middlewares: [TemplateValidationMiddleware(templates: TemplateStore(directory: setup.folder), requiresTemplate: false)])
        #expect(try await lenient.getItem(path: .init(id: 7)).ok.body.json.value2.id == 7)
        // The other operations are still checked.
        await #expect(throws: ClientError.self) { try await lenient.listItems(query: .init(variant: "enum")) }
    }

    @Test(arguments: TestEngine.allCases)
    func manyCallsThatMeetAnExpiredTokenCostOneRefresh(_ engine: TestEngine) async throws {
        let setup = try await Self.setUp(engine)
        defer { try? FileManager.default.removeItem(at: setup.folder) }
        _ = try await setup.client.getItem(path: .init(id: 1)).ok
        let authority = setup.server.tokenAuthority(realm: setup.realm)
        let before = authority.snapshot.tokenRequests
        authority.configure(mode: nil, delay: 0.2, lifetime: nil, maxUses: nil, expireAll: true)
        let ids = try await withThrowingTaskGroup(of: Int.self) { group in
            for id in 1...20 {
                group.addTask { try await setup.client.getItem(path: .init(id: id)).ok.body.json.value2.id }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(ids.sorted() == Array(1...20))
        #expect(authority.snapshot.tokenRequests - before == 1)
    }

    @Test(arguments: TestEngine.allCases)
    func eachOperationIsPreparedWithItsIDAndReportsProgress(_ engine: TestEngine) async throws {
        let seen = Locked<[String]>([])
        let received = Locked<Int64>(0)
        let configuration = APILayerTransport.Configuration(prepare: { operation, operationID in
            seen.withLock { $0.append(operationID) }
            operation.idleTimeout = 10
            operation.onProgress { _, progress in received.withLock { $0 = max($0, progress.bytesReceived) } }
        })
        let setup = try await Self.setUp(engine, configuration: configuration)
        defer { try? FileManager.default.removeItem(at: setup.folder) }
        _ = try await setup.client.listItems(query: .init(limit: 50)).ok
        #expect(seen.withLock { $0 } == ["listItems"])
        #expect(received.withLock { $0 } > 1000)
    }

    @Test(arguments: TestEngine.allCases)
    func noServerIsAClientErrorWithTheTransportsCause(_ engine: TestEngine) async throws {
        let port = try unusedPort()
        let scope = APIScope(name: "nowhere")
        scope.configure {
            $0.session = engine.session
            $0.retryPolicy = RetryPolicy.none
        }
        let client = Client(serverURL: URL(string: "http://127.0.0.1:\(port)/inventory/x/")!, transport: APILayerTransport(scope: scope))
        do {
            _ = try await client.getItem(path: .init(id: 1))
            Issue.record("a closed port answered")
        } catch let error as ClientError {
            let cause = try #require(error.underlyingError as? NetOpsError, "\(error.underlyingError)")
            #expect(cause.httpStatus == nil)
            #expect(cause.url?.port == port)
        }
    }
}

/// `APILayerTransport.send` on its own, for what the generated client cannot reach: the scope's
/// retry policy and the prepare hook's timeouts.
@Suite(.processGate(.shared, minutes: 5))
struct TransportSendTests {
    static func scope(_ engine: TestEngine, retries: RetryPolicy) async throws -> (APIScope, URL) {
        let server = try await TestServer.get()
        let scope = APIScope(name: "send")
        scope.configure {
            $0.baseURL = server.baseURL
            $0.session = engine.session
            $0.retryPolicy = retries
        }
        return (scope, server.baseURL)
    }

    @Test(arguments: TestEngine.allCases)
    func aStatusTheScopesPolicyRetriesIsRetriedBeforeTheClientSeesIt(_ engine: TestEngine) async throws {
        let (scope, baseURL) = try await Self.scope(engine, retries: RetryPolicy(maximumAttempts: 4, baseDelay: 0.01, maximumDelay: 0.05))
        let transport = APILayerTransport(scope: scope)
        let key = UUID().uuidString
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/realm/send/flaky?key=\(key)&fail=2&status=503")
        let (response, body) = try await transport.send(request, body: nil, baseURL: baseURL, operationID: "flaky")
        #expect(response.status == .ok)
        let text = try await String(collecting: try #require(body), upTo: 1 << 16)
        #expect(text.contains(#""attempt":3"#), "\(text)")

        // Without retries the client gets the 503 itself, with its body.
        let (once, _) = try await Self.scope(engine, retries: RetryPolicy.none)
        let failing = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/realm/send/flaky?key=\(UUID().uuidString)&fail=1&status=503")
        let (unavailable, _) = try await APILayerTransport(scope: once).send(failing, body: nil, baseURL: baseURL, operationID: "flaky")
        #expect(unavailable.status.code == 503)
    }

    /// The client's fields reach the server through HTTPTypesFoundation's conversion (a repeated
    /// field joined, a value past ASCII as the client held it), and the server's come back as
    /// the engine read them (on the NIO engine a repeated field stays apart).
    @Test(arguments: TestEngine.allCases)
    func fieldsGoAndComeBackAsHTTPTypes(_ engine: TestEngine) async throws {
        let (scope, baseURL) = try await Self.scope(engine, retries: RetryPolicy.none)
        let transport = APILayerTransport(scope: scope)
        var request = HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/echo?from=transport")
        let test = try #require(HTTPField.Name("X-Test"))
        request.headerFields.append(HTTPField(name: test, value: "one"))
        request.headerFields.append(HTTPField(name: test, value: "two"))
        request.headerFields[try #require(HTTPField.Name("X-Name"))] = "café"
        let (_, body) = try await transport.send(request, body: HTTPBody("hello"), baseURL: baseURL, operationID: "echo")
        let echoed = try await Data(collecting: try #require(body), upTo: 1 << 16)
        let echo = try #require(try JSONSerialization.jsonObject(with: echoed) as? [String: Any])
        let headers = try #require(echo["headers"] as? [String: String])
        #expect(headers["x-test"]?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } == ["one", "two"])
        #expect(headers["x-name"] == "café")
        #expect(echo["body"] as? String == "hello")

        let cookies = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/cookies/set?cookie=a%3D1&cookie=b%3D2")
        let (response, _) = try await transport.send(cookies, body: nil, baseURL: baseURL, operationID: "cookies")
        let values = response.headerFields[values: .setCookie]
        #expect(engine == .nio ? values == ["a=1", "b=2"] : values.joined(separator: ", ") == "a=1, b=2", "\(values)")
    }

    @Test(arguments: TestEngine.allCases)
    func theIdleTimeoutThePrepareHookSetsEndsASilentRequest(_ engine: TestEngine) async throws {
        let (scope, baseURL) = try await Self.scope(engine, retries: RetryPolicy.none)
        let transport = APILayerTransport(scope: scope, configuration: .init(prepare: { operation, _ in operation.idleTimeout = 0.3 }))
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/delay?seconds=5")
        do {
            _ = try await transport.send(request, body: nil, baseURL: baseURL, operationID: "slow")
            Issue.record("a five-second silence passed a 0.3 s idle timeout")
        } catch let error as NetOpsError {
            guard case .idleTimeout = error.kind else {
                Issue.record("expected the idle timeout, got \(error)")
                return
            }
        }
    }

    /// A response body reaches the client as it arrives: the client holds its first chunk of a
    /// GiB, and the server (held back on the NIO engine, asked segment by segment on URLSession)
    /// stops far short of the end. The scope lifts its body limit (64 MiB by default), as an API
    /// that exports a GiB must.
    @Test(arguments: TestEngine.allCases)
    func aLargeResponseStreamsToTheClient(_ engine: TestEngine) async throws {
        let (scope, baseURL) = try await Self.scope(engine, retries: RetryPolicy.none)
        scope.configure { $0.maximumResponseBodyBytes = nil }
        let key = "transport-\(engine)-\(UUID().uuidString)"
        let size = 1 << 30
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/streamed/\(key)/\(size)")
        let (response, body) = try await APILayerTransport(scope: scope).send(request, body: nil, baseURL: baseURL, operationID: "export")
        #expect(response.status == .ok)
        let stream = try #require(body)
        #expect(stream.length == .known(Int64(size)))
        var chunks = stream.makeAsyncIterator()
        let first = try await chunks.next()
        #expect((first?.count ?? 0) > 0)
        try await Task.sleep(for: .seconds(1))
        let stats = try await DTO.get(baseURL.appendingPathComponent("streamed-stats/\(key)")).run()
        let written = try #require((stats.json as? [String: Any])?["written"] as? Int)
        #expect(written < size / 2, "the server wrote \(written) bytes for a client that read one chunk")
    }

    /// The request-body files the transport left in the temporary directory.
    static func spooledFiles() -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)) ?? []
        return Set(names.filter { $0.hasPrefix("apilayer-request-") })
    }

    /// A body of unknown length, produced chunk by chunk: it goes through a 0600 file that is
    /// gone once the call ended; one past `maxRequestBodyBytes` is refused and leaves nothing.
    @Test(arguments: TestEngine.allCases)
    func aRequestBodyOfUnknownLengthIsSentFromATemporaryFile(_ engine: TestEngine) async throws {
        struct Received: Decodable {
            let length: Int
            let sha256: String
        }
        let (scope, baseURL) = try await Self.scope(engine, retries: RetryPolicy.none)
        let payload = DemoPayload.data(size: 3 << 20)
        let chunks = stride(from: 0, to: payload.count, by: 100_000).map { payload[$0..<min($0 + 100_000, payload.count)] }
        let modes = ModeLog()
        let transport = APILayerTransport(
            scope: scope,
            configuration: .init(prepare: { operation, _ in
                if let file = operation.ownedBodyFile {
                    let mode = (try? FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber)?.intValue
                    modes.append(file, mode)
                }
            }))
        let produced = AsyncStream<ArraySlice<UInt8>> { continuation in
            for chunk in chunks { continuation.yield(ArraySlice(chunk)) }
            continuation.finish()
        }
        let request = HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/upload")
        let (response, body) = try await transport.send(
            request, body: HTTPBody(produced, length: .unknown, iterationBehavior: .single), baseURL: baseURL, operationID: "upload")
        #expect(response.status == .ok)
        let answer = try JSONDecoder().decode(Received.self, from: Data(try await ArraySlice(collecting: try #require(body), upTo: 1 << 16)))
        #expect(answer.length == payload.count)
        #expect(answer.sha256 == DemoPayload.sha256Hex(payload))
        let seen = modes.values
        #expect(seen.count == 1)
        #expect(seen.first?.mode == 0o600)
        if let file = seen.first?.file { #expect(!FileManager.default.fileExists(atPath: file.path), "the body file outlived its call") }

        let before = Self.spooledFiles()
        let small = APILayerTransport(scope: scope, configuration: .init(maxRequestBodyBytes: 1 << 20))
        let tooMuch = AsyncStream<ArraySlice<UInt8>> { continuation in
            for chunk in chunks { continuation.yield(ArraySlice(chunk)) }
            continuation.finish()
        }
        await #expect(throws: APILayerTransportError.bodyTooLarge(operationID: "upload", limit: 1 << 20)) {
            _ = try await small.send(
                request, body: HTTPBody(tooMuch, length: .unknown, iterationBehavior: .single), baseURL: baseURL, operationID: "upload")
        }
        // Other tests' calls spool beside this one and remove their files when they end: what
        // the refused call left would stay.
        let gone = await eventually(within: 30) { Self.spooledFiles().subtracting(before).isEmpty }
        #expect(gone, "left in the temporary directory: \(Self.spooledFiles().subtracting(before))")
    }
}

/// The body files `prepare` saw, and their modes.
private final class ModeLog: Sendable {
    private let log = Mutex<[(file: URL, mode: Int?)]>([])
    func append(_ file: URL, _ mode: Int?) { log.withLock { $0.append((file, mode)) } }
    var values: [(file: URL, mode: Int?)] { log.withLock { $0 } }
}
