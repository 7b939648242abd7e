import APILayer
import APILayerOpenAPI
import Foundation
import HTTPTypes
import NetOps
import NetOpsHTTP
import OpenAPIRuntime
import TestSupport
import Testing

/// A hostile server's endless bodies stay bounded: a generated OpenAPI client collects a body
/// `upTo: .max`, so the transport's stream stops at the scope's body limit with an error that
/// names it; a streamed operation given a limit stops there too; an endless SSE line fails at
/// the event limit. The servers here end their bodies after 48 MiB, so that a failing test does
/// not take the machine's memory with it.
@Suite("Security: streamed bodies", .processGate(.shared, minutes: 2))
struct StreamingLimitTests {
    /// A server whose every answer is a JSON array of zeros 48 MiB long, in chunks.
    static func hugeArrayServer() async throws -> ScriptedHTTPServer {
        try await ScriptedHTTPServer.start { _ in
            .chunked(contentType: "application/json", first: "[", chunk: String(repeating: "0,", count: 8_192), limit: 48 << 20)
        }
    }

    /// A scope on `server` whose calls keep at most 2 MiB.
    static func scope(_ server: ScriptedHTTPServer, engine: TestEngine) -> APIScope {
        let scope = APIScope(name: "stream-limit-\(UUID().uuidString.prefix(6))")
        scope.configure {
            $0.baseURL = server.url("/")
            $0.session = engine.makeSession()
            $0.maximumResponseBodyBytes = 2 << 20
            $0.totalTimeout = 60
        }
        return scope
    }

    /// What a generated client does with a JSON body: `APILayerTransport.send`, then the whole
    /// body collected `upTo: .max`. It fails at the scope's 2 MiB, naming the limit, on both
    /// engines. The NIO engine reads the socket no faster than the reader, so the server could
    /// hand the connection little more than the limit and the socket buffers, far from the body's
    /// 48 MiB (counted at the server: the process's resident size also counts the tests that run
    /// beside this one). The URLSession engine cannot slow libcurl down (`Docs/engines.md`), so
    /// what its server sent is not bounded.
    @Test(arguments: TestEngine.allCases)
    func theOpenAPITransportStopsAnEndlessBodyAtTheScopesLimit(_ engine: TestEngine) async throws {
        let server = try await Self.hugeArrayServer()
        defer { Task { await server.stop() } }
        let scope = Self.scope(server, engine: engine)
        let transport = APILayerTransport(scope: scope)
        var failure: (any Error)?
        var collected = 0
        do {
            let (response, body) = try await transport.send(
                HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/export"), body: nil, baseURL: server.url("/"),
                operationID: "export")
            #expect(response.status == .ok)
            collected = try await ArraySlice(collecting: try #require(body), upTo: .max).count
        } catch {
            failure = error
        }
        let text = failure.map { String(describing: $0) } ?? "no error; \(collected) bytes collected"
        #expect(text.contains("\(2 << 20)"), "\(text)")
        if engine == .nio {
            let sent = await settled(within: 15) { server.bytesStreamed }
            #expect(sent < 24 << 20, "the server handed the connection \(sent >> 20) MiB")
        }
    }

    /// A `StreamingOperation` of the scope reads no more than the scope's limit either.
    @Test(arguments: TestEngine.allCases)
    func anAdoptedStreamStopsAtTheScopesLimit(_ engine: TestEngine) async throws {
        let server = try await Self.hugeArrayServer()
        defer { Task { await server.stop() } }
        let stream = StreamingOperation.get(server.url("/export"))
        Self.scope(server, engine: engine).adopt(stream)
        var read = 0
        let failure = await #expect(throws: NetOpsError.self) {
            _ = try await stream.response()
            for try await chunk in stream.body { read += chunk.count }
        }
        #expect(read <= 2 << 20, "read \(read) bytes")
        guard case let .transport(code, reason)? = failure?.kind else {
            Issue.record("expected the body limit, got \(String(describing: failure))")
            return
        }
        #expect(code == BaseOperation.responseBodyTooLargeCode)
        #expect(reason.contains("\(2 << 20)"))
    }

    /// An SSE line that never ends (4 MiB without a line break, then the body ends): the event
    /// stream fails at its 1 MiB event limit with an error saying so, instead of buffering it.
    @Test(arguments: TestEngine.allCases)
    func anEndlessServerSentEventLineFailsAtTheEventLimit(_ engine: TestEngine) async throws {
        let server = try await ScriptedHTTPServer.start { _ in
            .chunked(contentType: "text/event-stream", first: "data: ", chunk: String(repeating: "x", count: 16_384), limit: 4 << 20)
        }
        defer { Task { await server.stop() } }
        let stream = StreamingOperation.get(server.url("/events")).on(engine)
        let failure = await #expect(throws: (any Error).self) {
            _ = try await stream.response()
            for try await _ in stream.body.serverSentEvents {}
        }
        let text = failure.map { String(describing: $0) } ?? ""
        #expect(text.contains("\(1 << 20)"), "\(text)")
    }
}
