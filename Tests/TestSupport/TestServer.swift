import DemoServer
import Foundation

/// The one DemoServer of the test process, started on first use and shared by every test target.
/// It answers on threads of its own (`DemoServerThreads`): a test that blocks a thread of the
/// cooperative pool or of NIO's singleton loops for a while slows no other test's server.
public enum TestServer {
    private static let shared = Task { try await DemoServer.start(threads: DemoServerThreads()) }

    /// The running server.
    public static func get() async throws -> DemoServer {
        try await shared.value
    }

    /// The absolute URL of `path` (with query) on the shared server.
    public static func url(_ path: String) async throws -> URL {
        let server = try await get()
        return URL(string: path, relativeTo: server.baseURL)!.absoluteURL
    }
}

/// A second DemoServer on another loopback address (127.0.0.2): another origin, for tests that
/// check where a token goes. Started on first use, shared by the process's tests.
public enum OtherOriginServer {
    private static let shared = Task { try await DemoServer.start(host: "127.0.0.2", threads: DemoServerThreads()) }

    /// The running server.
    public static func get() async throws -> DemoServer {
        try await shared.value
    }
}
