import Crypto
import Foundation
import TestSupport
import Testing

@testable import NetOps
@testable import NetOpsHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session makes its operations: `session.get`, `post`, `put`, `patch`, `delete`, `request`,
/// `download`, `upload`, `multipart` and `stream` make the operation the static of the same name
/// makes, with the session as its `privateSession`: it runs through that session's stages, and
/// fails at start with the static's error where the static's would.
@Suite(.timeLimit(.minutes(2)))
struct SessionOperationsTests {
    struct Echo: Decodable {
        let method: String
        let query: [String: String]
        let headers: [String: String]
        let body: String
    }

    struct Received: Decodable {
        let length: Int
        let sha256: String
    }

    /// A stage that tags each request with its session's name and notes the paths it saw.
    final class Tagging: NetworkMiddleware, Sendable {
        let name: String
        private let seen = Locked<[String]>([])
        var paths: [String] { seen.withLock { $0 } }

        init(_ name: String) { self.name = name }

        func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
            request.setValue(name, forHTTPHeaderField: "X-Session")
            let path = request.url?.path ?? ""
            seen.withLock { $0.append(path) }
            return .proceed
        }
    }

    /// A session of `engine` of the test's own, with a tagging stage.
    private static func session(_ engine: TestEngine) -> (NetworkSession, Tagging) {
        let tagging = Tagging("session-\(UUID().uuidString.prefix(8))")
        var options = NetworkSession.Options()
        options.middleware = [tagging]
        return (engine.makeSession(options: options), tagging)
    }

    /// Shuts `session` down when it is a NIO session.
    private static func close(_ session: NetworkSession) async {
        try? await session.shutdownNIOEngine()
    }

    private static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    @Test(arguments: TestEngine.allCases)
    func eachMethodIsTheStaticsOperationInTheSession(_ engine: TestEngine) async throws {
        let (session, tagging) = Self.session(engine)
        let url = try await TestServer.url("echo")
        let pairs: [(DTO, DTO, String)] = [
            (session.get(url, parameters: ["q": "1"], headers: ["X-A": "a"]), DTO.get(url, parameters: ["q": "1"], headers: ["X-A": "a"]), "GET"),
            (session.post(url, parameters: ["q": "1"]), DTO.post(url, parameters: ["q": "1"]), "POST"),
            (session.put(url, parameters: ["q": "1"], encoding: .form), DTO.put(url, parameters: ["q": "1"], encoding: .form), "PUT"),
            (session.patch(url, parameters: ["q": "1"]), DTO.patch(url, parameters: ["q": "1"]), "PATCH"),
            (session.delete(url, parameters: ["q": "1"]), DTO.delete(url, parameters: ["q": "1"]), "DELETE"),
            (
                session.request(.post, url, parameters: ["q": "1"], encoding: .query),
                DTO.request(.post, url, parameters: ["q": "1"], encoding: .query), "POST"
            ),
        ]
        for (made, statics, method) in pairs {
            #expect(made.privateSession === session)
            #expect(statics.privateSession == nil, "a static's operation runs in NetworkSession.shared")
            #expect(made.request == statics.request, "\(method)")
            try await made.run()
            let echo = try JSONDecoder().decode(Echo.self, from: made.receivedData)
            #expect(echo.method == method)
            #expect(echo.headers["x-session"] == tagging.name, "the session's stage ran")
        }
        #expect(tagging.paths.count == pairs.count)
        await Self.close(session)
    }

    @Test(arguments: TestEngine.allCases)
    func downloadsAndUploadsRunInTheSession(_ engine: TestEngine) async throws {
        let (session, tagging) = Self.session(engine)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-session-ops-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let destination = folder.appendingPathComponent("downloaded")
        let download = session.download(try await TestServer.url("bytes/300000"), to: destination)
        #expect(download.privateSession === session)
        try await download.run()
        let downloaded = try Data(contentsOf: destination)
        #expect(downloaded.count == 300_000)
        #expect(download.fileURL == destination)

        let upload = session.upload(downloaded, to: try await TestServer.url("upload"))
        try await upload.run()
        #expect(try JSONDecoder().decode(Received.self, from: upload.receivedData).sha256 == Self.sha256(downloaded))

        let fromFile = session.upload(fileAt: destination, to: try await TestServer.url("upload"), method: .put)
        #expect(fromFile.request == UO.upload(fileAt: destination, to: try await TestServer.url("upload"), method: .put).request)
        try await fromFile.run()
        #expect(try JSONDecoder().decode(Received.self, from: fromFile.receivedData).length == 300_000)

        var form = MultipartFormData()
        form.append("holiday", name: "caption")
        try form.append(fileAt: destination, name: "file")
        let multipart = session.multipart(form, to: try await TestServer.url("multipart"))
        try await multipart.run()
        #expect(String(decoding: multipart.receivedData, as: UTF8.self).contains(Self.sha256(downloaded)))

        #expect(tagging.paths.filter { $0 == "/upload" }.count == 2)
        #expect(tagging.paths.contains("/multipart"))
        #expect(tagging.paths.contains("/bytes/300000"))
        await Self.close(session)
    }

    @Test(arguments: TestEngine.allCases)
    func streamsRunInTheSession(_ engine: TestEngine) async throws {
        let (session, tagging) = Self.session(engine)
        let lines = session.stream(try await TestServer.url("lines/500"), bufferedBytes: 4096)
        #expect(lines.privateSession === session)
        #expect(lines.bufferedBytes == 4096)
        try await lines.response()
        var count = 0
        for try await _ in lines.body.lines { count += 1 }
        #expect(count == 500)

        let posted = session.stream(.post, try await TestServer.url("echo"), parameters: ["q": "1"])
        #expect(posted.request == SO.request(.post, try await TestServer.url("echo"), parameters: ["q": "1"]).request)
        try await posted.response()
        var body = Data()
        for try await chunk in posted.body { body.append(chunk) }
        let echo = try JSONDecoder().decode(Echo.self, from: body)
        #expect(echo.method == "POST")
        #expect(echo.headers["x-session"] == tagging.name)
        await Self.close(session)
    }

    /// What a static refuses, the session's constructor refuses with the same error, at start.
    @Test(arguments: TestEngine.allCases)
    func whatTheStaticsRefuseTheSessionRefuses(_ engine: TestEngine) async throws {
        let (session, tagging) = Self.session(engine)
        let echo = try await TestServer.url("echo")
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-absent-\(UUID().uuidString)")
        var badForm = MultipartFormData(boundary: "bad\nboundary")
        badForm.append("x", name: "field")
        let pairs: [(BaseOperation, BaseOperation)] = [
            (session.get("not a url"), DTO.get("not a url")),
            (session.get("ftp2://127.0.0.1/file"), DTO.get("ftp2://127.0.0.1/file")),
            (session.post(echo, headers: ["X-Bad": "a\r\nInjected: 1"]), DTO.post(echo, headers: ["X-Bad": "a\r\nInjected: 1"])),
            (session.put(echo, parameters: ["date": Date()]), DTO.put(echo, parameters: ["date": Date()])),
            (session.download("not a url", to: missing), DO.get("not a url", to: missing)),
            (session.upload(fileAt: missing, to: echo), UO.upload(fileAt: missing, to: echo)),
            (session.multipart(badForm, to: echo), UO.multipart(badForm, to: echo)),
            (session.stream("not a url"), SO.get("not a url")),
        ]
        for (made, statics) in pairs {
            statics.privateSession = session
            _ = try? await made.run()
            _ = try? await statics.run()
            #expect(made.state == .failedFinished)
            #expect(made.error != nil)
            #expect(made.error == statics.error, "\(String(describing: made.error)) against \(String(describing: statics.error))")
        }
        // Only the two uploads of a missing file get as far as the stages: the file is opened
        // when the transfer starts.
        #expect(tagging.paths == ["/echo", "/echo"])
        await Self.close(session)
    }

    /// The session is a value on the operation: another one set before start wins.
    @Test(arguments: TestEngine.allCases)
    func theSessionIsReadAtStart(_ engine: TestEngine) async throws {
        let (first, firstTagging) = Self.session(engine)
        let (second, secondTagging) = Self.session(engine)
        let url = try await TestServer.url("echo")

        let moved = first.get(url)
        moved.privateSession = second
        try await moved.run()
        #expect(firstTagging.paths.isEmpty)
        #expect(secondTagging.paths == ["/echo"])

        await Self.close(first)
        await Self.close(second)
    }
}
