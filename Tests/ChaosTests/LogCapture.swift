import Foundation
import Logging

/// Every log line written through its loggers, for searching them for secrets.
final class LogCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    /// All lines so far, one per line.
    var text: String { lock.withLock { lines.joined(separator: "\n") } }

    /// Lines so far.
    var count: Int { lock.withLock { lines.count } }

    func append(_ line: String) { lock.withLock { lines.append(line) } }

    /// A logger at trace level writing here.
    func logger(label: String = "chaos-test") -> Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let error = event.error.map { "\(String(describing: $0)) \(String(reflecting: $0))" } ?? ""
            capture.append("\(event.level) \(event.message) \(event.metadata ?? [:]) \(error)")
        }
    }
}
