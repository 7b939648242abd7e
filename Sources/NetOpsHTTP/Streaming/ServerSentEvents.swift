import Foundation
import NetOps

/// One server-sent event (`text/event-stream`).
public struct ServerSentEvent: Sendable, Equatable {
    /// The event's type: its `event:` field, `message` without one.
    public var event: String
    /// Its `data:` lines joined with LF.
    public var data: String
    /// The last event ID in effect when it was sent (its own `id:`, or an earlier event's);
    /// what a client sends back as `Last-Event-ID` when it reconnects.
    public var id: String?
    /// The reconnection time in milliseconds that a `retry:` field of this event set, if any.
    public var retry: Int?

    /// An event.
    public init(event: String = "message", data: String, id: String? = nil, retry: Int? = nil) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }
}

/// Turns the lines of an event stream into events, as the WHATWG HTML standard's
/// "Server-sent events" section interprets them.
///
/// A blank line dispatches the event being built (none when it has no `data:`); a line starting
/// with `:` is a comment; `field: value` loses one space after the colon; unknown fields are
/// ignored; an `id:` holding NUL is ignored, and the ID stays for later events; `retry:` counts
/// only when it is all digits. An event cut short by the end of the stream is not dispatched.
struct ServerSentEventParser {
    let maximumEventBytes: Int
    private var data: [UInt8] = []
    private var hasData = false
    private var eventType: String?
    private var lastEventID: String?
    private var retry: Int?
    private var seenFirstLine = false

    init(maximumEventBytes: Int) {
        self.maximumEventBytes = max(1, maximumEventBytes)
    }

    /// The event `line` dispatches, if any.
    mutating func take(_ line: [UInt8]) throws -> ServerSentEvent? {
        var line = line[...]
        if !seenFirstLine {
            seenFirstLine = true
            // A byte order mark at the very start is not part of the first field.
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
        }
        if line.isEmpty { return dispatch() }
        if line.first == UInt8(ascii: ":") { return nil }
        let name: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            name = line[..<colon]
            value = line[(colon + 1)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            name = line
            value = []
        }
        switch String(decoding: name, as: UTF8.self) {
        case "data":
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
            if data.count > maximumEventBytes {
                throw NetOpsError(.stream(reason: "a server-sent event is longer than \(maximumEventBytes) bytes"), url: nil)
            }
        case "event":
            eventType = String(decoding: value, as: UTF8.self)
        case "id":
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
                retry = Int(String(decoding: value, as: UTF8.self))
            }
        default:
            break
        }
        return nil
    }

    /// The event built so far, if it has data; the buffers start over either way.
    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            data = []
            hasData = false
            eventType = nil
            retry = nil
        }
        guard hasData else { return nil }
        let type = eventType.flatMap { $0.isEmpty ? nil : $0 } ?? "message"
        return ServerSentEvent(event: type, data: String(decoding: data, as: UTF8.self), id: lastEventID, retry: retry)
    }
}

/// The server-sent events of a streamed body (`ResponseBodyStream.serverSentEvents`).
public struct ServerSentEvents: AsyncSequence, Sendable {
    /// An event.
    public typealias Element = ServerSentEvent

    let body: ResponseBodyStream
    let maximumEventBytes: Int

    /// Reads the events.
    public func makeAsyncIterator() -> Iterator {
        Iterator(
            chunks: body.makeAsyncIterator(),
            splitter: LineSplitter(breaks: .anyBreak, maximumLineBytes: maximumEventBytes),
            parser: ServerSentEventParser(maximumEventBytes: maximumEventBytes))
    }

    /// Reads a body's events.
    public struct Iterator: AsyncIteratorProtocol {
        var chunks: ResponseBodyStream.Iterator
        var splitter: LineSplitter
        var parser: ServerSentEventParser
        var ready: [ServerSentEvent] = []
        var nextReady = 0
        var done = false

        init(chunks: ResponseBodyStream.Iterator, splitter: LineSplitter, parser: ServerSentEventParser) {
            self.chunks = chunks
            self.splitter = splitter
            self.parser = parser
        }

        /// The next event; nil at the end of the body.
        public mutating func next() async throws -> ServerSentEvent? {
            while nextReady == ready.count {
                // An event the stream's end cut short is not dispatched (the standard's rule).
                if done { return nil }
                ready = []
                nextReady = 0
                guard let chunk = try await chunks.next() else {
                    done = true
                    continue
                }
                for line in try splitter.lines(in: chunk) {
                    if let event = try parser.take(line) { ready.append(event) }
                }
            }
            defer { nextReady += 1 }
            return ready[nextReady]
        }
    }
}

extension ResponseBodyStream {
    /// The body split into lines (JSON lines, CSV, logs), without their line breaks.
    ///
    /// A line ends at LF; a CR before it is dropped. A last line without a line break is
    /// returned too. Bytes that are not UTF-8 become U+FFFD. A line longer than
    /// `maximumLineBytes` ends the read with `NetOpsError.Kind.stream`.
    public func lines(maximumLineBytes: Int = 1 << 20) -> ResponseLines {
        ResponseLines(body: self, maximumLineBytes: maximumLineBytes)
    }

    /// The body read as lines of up to 1 MiB each (`lines(maximumLineBytes:)`).
    public var lines: ResponseLines { lines() }

    /// The body read as server-sent events (`text/event-stream`, as the WHATWG HTML standard's
    /// "Server-sent events" parses them), each event at most `maximumEventBytes` long.
    public func serverSentEvents(maximumEventBytes: Int = 1 << 20) -> ServerSentEvents {
        ServerSentEvents(body: self, maximumEventBytes: maximumEventBytes)
    }

    /// The body read as server-sent events of up to 1 MiB each.
    public var serverSentEvents: ServerSentEvents { serverSentEvents() }
}
