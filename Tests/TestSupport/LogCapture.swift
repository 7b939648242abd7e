import Foundation
import Logging

/// Every log event written through its loggers: searched for secrets, or for a warning.
public final class LogCapture: @unchecked Sendable {
    private struct Entry {
        let level: Logger.Level
        let message: String
        /// Level, message, metadata (the logger's and the event's) and the error's description and reflection.
        let line: String
    }

    private let lock = NSLock()
    private var entries: [Entry] = []

    /// An empty capture.
    public init() {}

    /// All lines so far, one per line.
    public var text: String { lock.withLock { entries.map(\.line).joined(separator: "\n") } }

    /// How many events so far.
    public var count: Int { lock.withLock { entries.count } }

    /// The messages of the events at `level` or worse.
    public func messages(atLeast level: Logger.Level) -> [String] {
        lock.withLock { entries.filter { $0.level >= level }.map(\.message) }
    }

    /// A handler writing here.
    public var handler: Handler { Handler(capture: self) }

    /// A logger at trace level writing here.
    public func logger(label: String = "test") -> Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    private func append(_ entry: Entry) { lock.withLock { entries.append(entry) } }

    /// The `LogHandler` of a capture.
    public struct Handler: LogHandler {
        let capture: LogCapture
        /// The logger's own metadata, written into each captured line.
        public var metadata: Logger.Metadata = [:]
        /// Everything is captured by default.
        public var logLevel: Logger.Level = .trace

        /// One metadata value of the logger.
        public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        /// Records one line.
        public func log(event: LogEvent) {
            let error = event.error.map { "\(String(describing: $0)) \(String(reflecting: $0))" } ?? ""
            capture.append(
                Entry(
                    level: event.level, message: event.message.description,
                    line: "\(event.level) \(event.message) \(metadata.merging(event.metadata ?? [:]) { $1 }) \(error)"))
        }
    }
}
