import APILayer
import Crypto
import DemoServer
import Foundation
import NetOps
import TestSupport
import Testing
import Validator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Files through the recipe: a method whose answer goes to a file (`APIManager.download`) and
/// one whose body comes from a file (`APIManager.upload`, and `MultipartFile(fileAt:)` parts),
/// each under its API's scope (token, stages, typed errors), on both engines.
@Suite("The recipe: files", .timeLimit(.minutes(3)))
struct RecipeFileTests {
    /// DemoServer's error body, `{"status": 404}`, as an API's error model.
    struct StatusBody: APIErrorModel {
        let status: Int
        var description: String { "status body \(status)" }
    }

    /// What `/upload` saw.
    struct Received: Decodable, Sendable, Equatable {
        let length: Int
        let sha256: String
        let contentType: String?
    }

    /// What `/multipart` saw of each part.
    struct Parts: Decodable, Sendable {
        struct Part: Decodable, Sendable {
            let name: String
            let filename: String?
            let length: Int
            let sha256: String
        }
        let parts: [Part]
    }

    /// The methods of whatever API the task binds.
    enum Files: String, APIMethod {
        case export
        case missing
        case protectedExport
        case uploadBlob
        case uploadForm

        var path: String {
            switch self {
            case .export: "ranges/{size}"
            case .missing: "status/404"
            case .protectedExport: "realm/{realm}/protected"
            case .uploadBlob: "upload"
            case .uploadForm: "multipart"
            }
        }
        var httpMethod: HTTPMethod { self == .uploadBlob || self == .uploadForm ? .post : .get }
        var encoding: RequestEncoding { self == .uploadForm ? .multipart : .query }
        var defaultParameters: Parameters { [:] }
        var validation: ValidationPolicy { .custom { _ in [] } }
        var errorModel: (any APIErrorModel.Type)? { StatusBody.self }
    }

    static func scope(_ engine: TestEngine, base: URL, name: String) -> APIScope {
        APIScope(name: "files-\(name)-\(engine)", configuration: APIScope.Configuration(baseURL: base, session: engine.makeSession()))
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("recipe-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test(arguments: TestEngine.allCases)
    func aDownloadMethodSavesTheBodyAndGivesTheFile(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("export.bin")
        let size = 3 << 20
        let saved = try await APIManager.withDefaultAPI(Self.scope(engine, base: server.baseURL, name: "save")) {
            try await APIManager.download(Files.export, properties: ["size": size, "key": UUID().uuidString], to: destination).run()
        }
        #expect(saved == destination)
        #expect(try Data(contentsOf: destination) == Data(DemoPayload.bytes(offset: 0, length: size)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["export.bin"])
    }

    /// An unaccepted status: the typed error, its body decoded into the error model, and the
    /// destination untouched, no partial file left.
    @Test(arguments: TestEngine.allCases)
    func aRefusedDownloadIsATypedServerErrorAndLeavesNoFile(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("kept.txt")
        try Data("older".utf8).write(to: destination)
        let operation = APIManager.withDefaultAPI(Self.scope(engine, base: server.baseURL, name: "refused")) {
            APIManager.download(Files.missing, to: destination)
        }
        await #expect(throws: APIError.self) { try await operation.run() }
        guard case let .failure(error) = operation.result else { return }
        guard case let .server(status, message) = error.stage else {
            Issue.record("expected a server error, got \(error)")
            return
        }
        #expect(status == 404)
        #expect(message == "status body 404")
        #expect((error.serverError as? StatusBody)?.status == 404)
        #expect(operation.receivedData == Data(#"{"status":404}"#.utf8))
        #expect(try Data(contentsOf: destination) == Data("older".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["kept.txt"])
    }

    /// The API's token goes with a download; a 401 parks it for the one refresh and the replay
    /// saves the body.
    @Test(arguments: TestEngine.allCases)
    func aDownloadCarriesTheTokenAndSurvivesARefresh(_ engine: TestEngine) async throws {
        let (server, realm, base) = try await TestServer.newRealm()
        let scope = Self.scope(engine, base: server.baseURL, name: "token")
        scope.configureAuthentication(
            authenticator: OAuthRefreshTokenAuthenticator(tokenURL: base.appendingPathComponent("oauth/token"), timeout: 30),
            store: InMemoryTokenStore(Token(accessToken: "not-issued-\(UUID().uuidString)", refreshToken: "seed-1")))
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destinations = (0..<3).map { folder.appendingPathComponent("protected-\($0).json") }
        try await APIManager.withDefaultAPI(scope) {
            try await withThrowingTaskGroup(of: URL.self) { group in
                for destination in destinations {
                    group.addTask { try await APIManager.download(Files.protectedExport, properties: ["realm": realm], to: destination).run() }
                }
                for try await _ in group {}
            }
        }
        for destination in destinations {
            #expect(try Data(contentsOf: destination) == Data(#"{"ok":true,"method":"GET"}"#.utf8))
        }
        #expect(server.tokenAuthority(realm: realm).snapshot.tokenRequests == 1)
    }

    /// Suspended halfway, a download continues with a `Range` request and the file is the whole
    /// body, byte for byte.
    @Test(arguments: TestEngine.allCases)
    func aDownloadResumesWhereItWasSuspended(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("resumed.bin")
        let size = 2 << 20
        let key = UUID().uuidString
        let operation = APIManager.withDefaultAPI(Self.scope(engine, base: server.baseURL, name: "resume")) {
            APIManager.download(Files.export, properties: ["size": size, "key": key, "rate": 4 << 20], to: destination)
        }
        whenBodies(of: [operation], reach: 256 << 10) { [weak operation] in _ = operation?.suspend() }
        operation.start()
        #expect(await eventually(within: 20) { operation.state == .suspended || operation.isFinishedOrCancelled })
        let kept = operation.progress.bytesReceived
        #expect(operation.resume())
        let saved = try await operation.run()
        #expect(saved == destination)
        #expect(try Data(contentsOf: destination) == Data(DemoPayload.bytes(offset: 0, length: size)))
        let log = try await DTO.get(server.baseURL.appendingPathComponent("ranges-log/\(key)")).run().receivedData
        #expect(kept > 0 && kept < Int64(size))
        #expect(String(decoding: log, as: UTF8.self).contains("bytes=\(kept)-") || engine == .urlSession)
        #expect(String(decoding: log, as: UTF8.self).contains("206"))
    }

    @Test(arguments: TestEngine.allCases)
    func anUploadMethodSendsTheFileAsTheBody(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("notes.txt")
        let content = Data(String(repeating: "a line of notes\n", count: 4_000).utf8)
        try content.write(to: file)
        let received = try await APIManager.withDefaultAPI(Self.scope(engine, base: server.baseURL, name: "upload")) {
            try await APIManager.upload(Files.uploadBlob, fileAt: file, properties: ["name": "notes.txt"], as: Received.self).run()
        }
        #expect(received.length == content.count)
        #expect(received.sha256 == SHA256Hex.of(content))
        #expect(received.contentType == "text/plain")
    }

    @Test(arguments: TestEngine.allCases)
    func aMultipartMethodStreamsFileParts(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("photo.bin")
        let content = Data(DemoPayload.bytes(offset: 7, length: 1 << 20))
        try content.write(to: file)
        let seen = try await APIManager.withDefaultAPI(Self.scope(engine, base: server.baseURL, name: "form")) {
            try await APIManager.call(
                Files.uploadForm, properties: ["caption": "holiday", "photo": MultipartFile(fileAt: file, filename: "beach.bin")],
                as: Parts.self)
        }
        let photo = seen.parts.first { $0.name == "photo" }
        #expect(photo?.filename == "beach.bin")
        #expect(photo?.length == content.count)
        #expect(photo?.sha256 == SHA256Hex.of(content))
        #expect(seen.parts.contains { $0.name == "caption" })
    }

    /// A file that is not there fails the call at construction, naming it; nothing is sent.
    @Test func aMissingFileIsAConstructionError() async throws {
        let server = try await TestServer.get()
        let missing = URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString).bin")
        let scope = Self.scope(.nio, base: server.baseURL, name: "missing")
        let upload = APIManager.withDefaultAPI(scope) { APIManager.upload(Files.uploadBlob, fileAt: missing, as: Received.self) }
        await #expect(throws: APIError.self) { try await upload.run() }
        let form = APIManager.withDefaultAPI(scope) {
            APIManager.operation(Files.uploadForm, properties: ["photo": MultipartFile(fileAt: missing)], as: Parts.self)
        }
        await #expect(throws: APIError.self) { try await form.run() }
        func failure<Model>(_ result: Result<Model, APIError>?) -> APIError? {
            if case let .failure(error) = result { return error }
            return nil
        }
        for error in [failure(upload.result), failure(form.result)] {
            guard let error, case let .construction(reason) = error.stage else {
                Issue.record("expected a construction error, got \(String(describing: error))")
                continue
            }
            #expect(reason.contains(missing.path))
        }
    }
}

/// Lowercase hexadecimal SHA-256, as DemoServer's `/upload` reports it.
enum SHA256Hex {
    static func of(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}
