import Foundation
import TestSupport
import Testing

/// How the suites that need a real server decide to run: what counts as installed, what the
/// environment requires, the run's last line, and that a server which fails to start is an error.
@Suite(.timeLimit(.minutes(1)))
struct RealServerTests {
    /// Runs `body` with a temporary folder of its own.
    private func withFolder(_ body: (URL) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-realserver-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try body(folder)
    }

    /// Writes a shell script that exits with `status` at `file`, with `mode`.
    private func script(_ file: URL, exiting status: Int = 0, mode: Int = 0o755) throws {
        try Data("#!/bin/sh\nexit \(status)\n".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file.path)
    }

    @Test func onlyAnExecutableRegularFileCounts() throws {
        try withFolder { folder in
            let tool = folder.appendingPathComponent("tool")
            try script(tool)
            #expect(RealServer.isExecutableRegularFile(atPath: tool.path))
            let link = folder.appendingPathComponent("link")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: tool)
            #expect(RealServer.isExecutableRegularFile(atPath: link.path))

            let readable = folder.appendingPathComponent("readable")
            try script(readable, mode: 0o644)
            #expect(!RealServer.isExecutableRegularFile(atPath: readable.path))
            #expect(!RealServer.isExecutableRegularFile(atPath: folder.path), "a folder")
            #expect(!RealServer.isExecutableRegularFile(atPath: "/dev/null"), "what a hidden server is bound to")
            #expect(!RealServer.isExecutableRegularFile(atPath: folder.appendingPathComponent("absent").path))
        }
    }

    @Test func theEnvironmentRequiresServers() {
        #expect(!RealServer.nginx.isRequired(in: [:]))
        #expect(RealServer.nginx.isRequired(in: ["APILAYER_REQUIRE_SERVERS": "1"]))
        #expect(!RealServer.nginx.isRequired(in: ["APILAYER_REQUIRE_SERVERS": "0"]))
        #expect(!RealServer.nginx.isRequired(in: ["APILAYER_REQUIRE_SERVERS": ""]))
        #expect(RealServer.postgresql.isRequired(in: ["APILAYER_REQUIRE_SERVERS": "1"]))
        #expect(RealServer.postgresql.isRequired(in: ["APILAYER_REQUIRE_POSTGRES": "1"]))
        #expect(!RealServer.tinyproxy.isRequired(in: ["APILAYER_REQUIRE_POSTGRES": "1"]))
    }

    @Test func aMissingServerSkipsUnlessRequired() {
        let none: (RealServer) -> Bool = { _ in false }
        let all: (RealServer) -> Bool = { _ in true }
        let needs: [RealServer] = [.nginx, .openssl, .postgresql]
        #expect(MissingServers.skipping(needs, environment: [:], isInstalled: all).isEmpty)
        #expect(MissingServers.skipping(needs, environment: [:], isInstalled: none) == needs)
        #expect(MissingServers.skipping(needs, environment: [:], isInstalled: { $0 != .openssl }) == [.openssl])
        #expect(MissingServers.skipping(needs, environment: ["APILAYER_REQUIRE_SERVERS": "1"], isInstalled: none).isEmpty)
        #expect(MissingServers.skipping(needs, environment: ["APILAYER_REQUIRE_POSTGRES": "1"], isInstalled: none) == [.nginx, .openssl])
    }

    @Test func theRunEndsWithOneLineNamingTheSkippedSuitesAndTheirInstall() throws {
        #expect(MissingServers.summary(of: [:]) == nil)
        let line = try #require(
            MissingServers.summary(of: [
                "TLSTransportTests": [.nginx, .openssl], "ProxyTransportTests": [.tinyproxy, .microsocks], "PostgresTokenStore": [.postgresql],
            ]))
        #expect(
            line == "Skipped for want of nginx, openssl, tinyproxy, microsocks, postgresql: PostgresTokenStore, ProxyTransportTests, "
                + "TLSTransportTests. `apt-get install -y nginx-light openssl tinyproxy microsocks postgresql` enables them; "
                + "APILAYER_REQUIRE_SERVERS=1 makes a missing server fail instead.")
        #expect(!line.contains("\n"))
    }

    /// An installed server that exits at once is an error that says so, never a skip.
    @Test func aServerThatFailsToStartIsAnError() throws {
        try withFolder { folder in
            let failing = folder.appendingPathComponent("tinyproxy")
            try script(failing, exiting: 1)
            do {
                _ = try ProxyServer.tinyproxy(executable: failing.path)
                Issue.record("a proxy that exits at once was started")
            } catch let failure as ProxyServer.Failure {
                #expect(failure.description.contains("did not start"), "\(failure)")
            }
        }
    }
}
