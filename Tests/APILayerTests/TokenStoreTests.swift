import APILayer
import Foundation
import TestSupport
import Testing

/// The file token store: permissions, atomic replacement, corruption, and crashes mid-write.
@Suite(.timeLimit(.minutes(2)))
struct TokenStoreTests {
    static func scratch() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-tokens-\(UUID().uuidString)")
    }

    static func mode(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func fileIs0600InA0700Folder() throws {
        let directory = Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileTokenStore(fileURL: directory.appendingPathComponent("nested/token.json"))
        let token = Token(accessToken: "a-secret", refreshToken: "r-secret", expiresAt: Date(timeIntervalSince1970: 2_000_000_000), userID: "7")
        try store.save(token)
        #expect(try Self.mode(of: store.fileURL.path) == 0o600)
        #expect(try Self.mode(of: store.fileURL.deletingLastPathComponent().path) == 0o700)
        #expect(try store.load() == token)
        try store.save(Token(accessToken: "second"))
        #expect(try store.load()?.accessToken == "second")
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.fileURL.deletingLastPathComponent().path) == ["token.json"])
        try store.remove()
        #expect(try store.load() == nil)
        try store.remove()
    }

    @Test func corruptFileIsReportedAndTreatedAsAbsent() throws {
        let directory = Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileTokenStore(fileURL: directory.appendingPathComponent("token.json"))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("{\"access".utf8).write(to: store.fileURL)
        #expect(throws: TokenStoreError.self) { try store.load() }
        let coordinator = AuthenticationCoordinator(authenticator: ClosureAuthenticator { _ in Token(accessToken: "new") }, store: store)
        #expect(coordinator.token == nil)
        #expect(coordinator.restoreToken() == nil)
    }

    @Test func tokensNeverPrintTheirSecrets() {
        let token = Token(accessToken: "very-secret-access", refreshToken: "very-secret-refresh", userID: "9")
        var dumped = ""
        dump(token, to: &dumped)
        for text in [token.description, token.debugDescription, "\(token)", String(reflecting: token), dumped] {
            #expect(!text.contains("very-secret"))
        }
        let error = TokenStoreError.corrupt(path: "/x", reason: "not a token")
        #expect(!error.description.contains("secret"))
    }

    /// A writer process killed at random moments: the file always holds a whole token.
    ///
    /// Each round waits until the new writer has saved at least once (a process of an
    /// instrumented build can take longer to start than any fixed delay), then kills it a random
    /// few milliseconds later, somewhere in a later save.
    @Test func crashMidWriteLeavesTheOldOrTheNewToken() async throws {
        let tool = try #require(Self.apilayerExecutable(), "the apilayer executable is built beside the tests")
        let directory = Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("token.json")
        let store = FileTokenStore(fileURL: file)
        var seen = Set<String>()
        var previous: String?
        for round in 0..<60 {
            let process = Process()
            process.executableURL = tool
            process.arguments = ["token-writer", "--file", file.path]
            try process.run()
            var saved = false
            for _ in 0..<4_000 where process.isRunning {
                // A read beside the writer is itself part of the test: it never sees a torn file.
                if let value = try store.load()?.accessToken, value != previous {
                    saved = true
                    break
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...40)))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(saved, "the writer of round \(round) saved nothing in 20 seconds")
            let token = try store.load()
            let value = try #require(token?.accessToken, "the token file vanished in round \(round)")
            #expect(value.hasPrefix("token-"))
            seen.insert(value)
            previous = value
            #expect(try Self.mode(of: file.path) == 0o600)
        }
        #expect(seen.count > 1)
    }

    static func apilayerExecutable() -> URL? { APILayerExecutable.url }
}
