import APILayer
import Foundation
import NetOps
import NetOpsHTTP
import TestSupport
import Testing

/// What a stop leaves behind: the cache's queued disk writes land before `APIService.stop()`
/// returns, so the next start finds what this one cached. (A stop's wait for a shared token
/// store is bounded too: `PostgresStoreSecurityTests.aStopWaitsForAGoneDatabaseABoundedTime`.)
@Suite("Security: shutdown", .timeLimit(.minutes(2)))
struct ShutdownSecurityTests {
    @Test(arguments: TestEngine.allCases)
    func aStopFlushesTheScopesDiskCache(_ engine: TestEngine) async throws {
        let body = String(repeating: "c", count: 1 << 20)
        let server = try await ScriptedHTTPServer.start { _ in
            .answer(status: 200, fields: [("Cache-Control", "max-age=600"), ("Content-Type", "text/plain")], body: Data(body.utf8), delay: 0)
        }
        defer { Task { await server.stop() } }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stop-cache-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try HTTPCache(configuration: .init(maximumEntryBytes: 2 << 20, directory: folder))
        let scope = APIScope(name: "stop-cache-\(UUID().uuidString.prefix(6))")
        scope.configure {
            $0.baseURL = server.url("/")
            $0.session = engine.makeSession()
            $0.cache = cache
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for number in 0..<16 {
                group.addTask {
                    let operation = DTO.get(server.url("/entry/\(number)"))
                    scope.adopt(operation)
                    try await operation.run()
                }
            }
            try await group.waitForAll()
        }
        await APIService(scopes: [scope]).stop()
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".entry") }
        #expect(files.count == 16, "\(files.count) of 16 entries on disk when stop() returned")
    }
}
