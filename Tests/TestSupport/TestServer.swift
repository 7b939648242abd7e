import DemoServer
import Foundation

/// The one DemoServer of the test process, started on first use and shared by every test target.
public enum TestServer {
    private static let shared = Task { try await DemoServer.start() }

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
