import DemoServer
import Foundation
import NetOps
import TestSupport
import Testing

/// `cURLDescription`: a command that sends the request again, secrets redacted by default.
struct CURLDescriptionTests {
    struct Echo: Decodable, Equatable {
        let method: String
        let path: String
        let query: [String: String]
        let body: String
    }

    @Test func redactedByDefault() async throws {
        let url = try await TestServer.url("echo")
        let operation = DTO.post(
            url.appendingQuery("access_token=q-secret&page=2"), parameters: ["password": "p-secret", "name": "n"],
            encoding: .form, headers: ["Authorization": "Bearer h-secret", "X-Plain": "it's"])
        let before = operation.cURLDescription
        #expect(before.hasPrefix("curl -X POST '"))
        try await operation.run()
        let command = operation.cURLDescription
        for secret in ["q-secret", "p-secret", "h-secret"] {
            #expect(!command.contains(secret), "\(command)")
            #expect(operation.cURLDescription(redactingWith: nil).contains(secret))
        }
        #expect(command.contains("page=2"))
        #expect(command.contains(#"-H 'X-Plain: it'\''s'"#))
        #expect(command.contains("--data-binary 'name=n&password=<redacted>'"))
    }

    /// The unredacted command, run by the real curl, makes the server see the same request.
    @Test func theUnredactedCommandReproducesTheRequest() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") else { return }
        let url = try await TestServer.url("echo")
        let operation = DTO.request(
            .put, url.appendingQuery("id=7&q=a%20b"), parameters: ["title": "it's \"quoted\"", "n": 3],
            headers: ["X-Trace": "t-1"])
        try await operation.run()
        let original = try operation.decode(Echo.self)
        let command = operation.cURLDescription(redactingWith: nil) + " --silent"
        let output = try await offCooperativePool { () -> Data in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", command]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return data
        }
        let replayed = try JSONDecoder().decode(Echo.self, from: output)
        #expect(replayed == original)
    }
}

extension URL {
    fileprivate func appendingQuery(_ query: String) -> URL {
        URL(string: absoluteString + "?" + query)!
    }
}
