import Foundation
import NetOps

/// Cuts a byte stream into lines, whatever the chunks' boundaries.
///
/// Two rules: `.lf` ends a line at LF and drops a CR right before it (JSON lines, most text);
/// `.anyBreak` ends one at CRLF, LF or a lone CR (server-sent events), a CRLF split across two
/// chunks counting once. Lines are returned as raw bytes; the caller decodes them.
struct LineSplitter {
    enum Breaks {
        case lf
        case anyBreak
    }

    let breaks: Breaks
    let maximumLineBytes: Int
    /// The start of a line whose end has not arrived.
    private var partial: [UInt8] = []
    /// The last chunk ended with a CR (`.anyBreak`): an LF at the next chunk's start belongs to it.
    private var afterCR = false

    init(breaks: Breaks, maximumLineBytes: Int) {
        self.breaks = breaks
        self.maximumLineBytes = max(1, maximumLineBytes)
    }

    /// The lines `chunk` completes, in order.
    mutating func lines(in chunk: Data) throws -> [[UInt8]] {
        var lines: [[UInt8]] = []
        try chunk.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            if afterCR, breaks == .anyBreak, bytes.first == 0x0A { start = 1 }
            afterCR = false
            var index = start
            while index < bytes.count {
                let byte = bytes[index]
                if byte == 0x0A || (byte == 0x0D && breaks == .anyBreak) {
                    var line = partial
                    partial = []
                    line.append(contentsOf: bytes[start..<index])
                    if breaks == .lf, line.last == 0x0D { line.removeLast() }
                    try check(line.count)
                    lines.append(line)
                    if byte == 0x0D {
                        if index + 1 < bytes.count {
                            if bytes[index + 1] == 0x0A { index += 1 }
                        } else {
                            afterCR = true
                        }
                    }
                    start = index + 1
                }
                index += 1
            }
            if start < bytes.count {
                partial.append(contentsOf: bytes[start...])
                try check(partial.count)
            }
        }
        return lines
    }

    /// The last line, when the stream ended without a break after it.
    mutating func finish() -> [UInt8]? {
        guard !partial.isEmpty else { return nil }
        defer { partial = [] }
        if breaks == .lf, partial.last == 0x0D { partial.removeLast() }
        return partial
    }

    private func check(_ length: Int) throws {
        guard length > maximumLineBytes else { return }
        throw NetOpsError(.stream(reason: "a line is longer than \(maximumLineBytes) bytes"), url: nil)
    }
}

/// The lines of a streamed body (`ResponseBodyStream.lines`).
public struct ResponseLines: AsyncSequence, Sendable {
    /// A line, without its line break.
    public typealias Element = String

    let body: ResponseBodyStream
    let maximumLineBytes: Int

    /// Reads the lines.
    public func makeAsyncIterator() -> Iterator {
        Iterator(chunks: body.makeAsyncIterator(), splitter: LineSplitter(breaks: .lf, maximumLineBytes: maximumLineBytes))
    }

    /// Reads a body's lines.
    public struct Iterator: AsyncIteratorProtocol {
        var chunks: ResponseBodyStream.Iterator
        var splitter: LineSplitter
        var ready: [[UInt8]] = []
        var nextReady = 0
        var done = false

        init(chunks: ResponseBodyStream.Iterator, splitter: LineSplitter) {
            self.chunks = chunks
            self.splitter = splitter
        }

        /// The next line; nil at the end of the body.
        public mutating func next() async throws -> String? {
            while nextReady == ready.count {
                if done { return nil }
                ready = []
                nextReady = 0
                if let chunk = try await chunks.next() {
                    ready = try splitter.lines(in: chunk)
                } else {
                    done = true
                    if let last = splitter.finish() { ready = [last] }
                }
            }
            defer { nextReady += 1 }
            return String(decoding: ready[nextReady], as: UTF8.self)
        }
    }
}
