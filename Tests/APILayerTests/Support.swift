import DemoServer
import Foundation
import Logging

/// The DemoServer of this test process, and a fresh token realm per test.
enum Server {
    private static let shared = Task { try await DemoServer.start() }

    static func get() async throws -> DemoServer { try await shared.value }

    /// A realm no other test uses: its own tokens, settings and counters.
    static func newRealm() async throws -> (server: DemoServer, realm: String, base: URL) {
        let server = try await get()
        let realm = "r\(UUID().uuidString.prefix(8))"
        return (server, realm, server.baseURL.appendingPathComponent("realm/\(realm)"))
    }
}

/// Every log line written through it, for checking that no secret is logged.
final class CapturedLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    var text: String { lock.withLock { lines.joined(separator: "\n") } }

    func append(_ line: String) { lock.withLock { lines.append(line) } }

    /// A logger at trace level writing here.
    func logger() -> Logger {
        var logger = Logger(label: "test") { _ in Handler(log: self) }
        logger.logLevel = .trace
        return logger
    }

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.append("\(event.level) \(event.message) \(event.metadata ?? [:]) \(event.error.map { String(describing: $0) } ?? "")")
        }
    }
}

/// Runs `body` on `count` new threads at once and returns when all have returned.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    await withTaskGroup(of: Void.self) { group in
        for index in 0..<count {
            group.addTask {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    Thread {
                        body(index)
                        continuation.resume()
                    }.start()
                }
            }
        }
    }
}
