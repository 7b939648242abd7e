import Foundation
import TestSupport
import Testing

/// Whether this process may make a network namespace (`unshare -n true` succeeds).
enum NetworkNamespace {
    static let canMake: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["-n", "true"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()
}

/// `apilayer connectivity` on a machine with no network: a network namespace of its own
/// (`unshare -n`), where no interface is up, not even loopback. Needs the right to make one
/// (root, or user namespaces); the suite says so when it cannot.
@Suite(.timeLimit(.minutes(1)), .enabled(if: NetworkNamespace.canMake, "unshare -n is not allowed here"))
struct ConnectivityCommandTests {
    /// Runs `apilayer` inside a network namespace of its own.
    static func runOffline(_ arguments: [String]) async throws -> (status: Int32, json: [String: Any]) {
        let tool = try #require(APILayerExecutable.url, "the apilayer executable is built beside the tests")
        let (status, output, _) = try await runChildProcess(URL(fileURLWithPath: "/usr/bin/unshare"), ["-n", tool.path] + arguments)
        let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
        return (status, try #require(object, "one JSON object: \(output)"))
    }

    /// A request to another host fails as `offline`, not as that host refusing, on both engines.
    @Test(arguments: ["urlsession", "nio"])
    func aRequestWithoutANetworkFailsAsOffline(engine: String) async throws {
        let (status, report) = try await Self.runOffline(["connectivity", "--engine", engine, "--try", "http://192.0.2.1/", "--json"])
        #expect(status == 1)
        #expect(report["online"] as? Bool == false)
        #expect((report["interfaces"] as? [String])?.isEmpty == true)
        #expect((report["reason"] as? String)?.contains("no network interface") == true)
        let request = try #require(report["request"] as? [String: String])
        #expect(request["outcome"] == "offline", "\(request)")
        #expect(request["detail"]?.contains("192.0.2.1") == true)
    }

    /// The same machine with its network: a refused loopback port stays `cannotConnect`.
    @Test func withTheNetworkALoopbackRefusalIsCannotConnect() async throws {
        let result = try await APILayerExecutable.run(["connectivity", "--try", "http://127.0.0.1:9/", "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let request = try #require(report["request"] as? [String: String])
        #expect(request["outcome"] == "cannotConnect", "\(request)")
        #expect(result.status == ((report["online"] as? Bool) == true ? 0 : 1))
    }
}
