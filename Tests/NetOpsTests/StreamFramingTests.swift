import Foundation
import Testing

@testable import NetOps
@testable import NetOpsHTTP

/// Line and server-sent-event framing, fed the same text in every way it can be cut into chunks.
struct StreamFramingTests {
    /// `text` cut at every `step`-th byte.
    static func chunks(_ text: String, step: Int) -> [Data] {
        let bytes = Array(text.utf8)
        return stride(from: 0, to: bytes.count, by: step).map { Data(bytes[$0..<min($0 + step, bytes.count)]) }
    }

    static func lines(_ text: String, step: Int, breaks: LineSplitter.Breaks) throws -> [String] {
        var splitter = LineSplitter(breaks: breaks, maximumLineBytes: 1 << 10)
        var lines: [String] = []
        for chunk in chunks(text, step: step) {
            lines += try splitter.lines(in: chunk).map { String(decoding: $0, as: UTF8.self) }
        }
        if let last = splitter.finish() { lines.append(String(decoding: last, as: UTF8.self)) }
        return lines
    }

    static func events(_ text: String, step: Int) throws -> [ServerSentEvent] {
        var splitter = LineSplitter(breaks: .anyBreak, maximumLineBytes: 1 << 10)
        var parser = ServerSentEventParser(maximumEventBytes: 1 << 10)
        var events: [ServerSentEvent] = []
        for chunk in chunks(text, step: step) {
            for line in try splitter.lines(in: chunk) {
                if let event = try parser.take(line) { events.append(event) }
            }
        }
        return events
    }

    @Test(arguments: 1...7) func jsonLinesWithLFAndCRLF(step: Int) throws {
        let text = "{\"a\":1}\n{\"b\":2}\r\n\n{\"c\":3}"
        #expect(try Self.lines(text, step: step, breaks: .lf) == ["{\"a\":1}", "{\"b\":2}", "", "{\"c\":3}"])
    }

    @Test(arguments: 1...7) func anyBreakCountsACRLFSplitAcrossChunksOnce(step: Int) throws {
        let text = "one\r\ntwo\rthree\nfour\r\r\nfive"
        #expect(try Self.lines(text, step: step, breaks: .anyBreak) == ["one", "two", "three", "four", "", "five"])
    }

    @Test func aLineLongerThanTheLimitIsRefused() throws {
        var splitter = LineSplitter(breaks: .lf, maximumLineBytes: 8)
        #expect(throws: NetOpsError.self) { _ = try splitter.lines(in: Data("0123456789".utf8)) }
        var split = LineSplitter(breaks: .lf, maximumLineBytes: 8)
        _ = try split.lines(in: Data("01234".utf8))
        #expect(throws: NetOpsError.self) { _ = try split.lines(in: Data("56789\n".utf8)) }
    }

    @Test(arguments: 1...9) func eventsAsTheStandardParsesThem(step: Int) throws {
        let text =
            "\u{FEFF}: a comment\n"
            + "retry: 2000\nid: 7\nevent: update\ndata: first\ndata:second\ndata\n\n"
            + "data: no type\r\n\r\n"
            + "id: x\u{0}y\ndata: id with NUL ignored\n\n"
            + "event: empty\n\n"
            + "retry: 12a\nfield: unknown\ndata:  two spaces\n\n"
            + "data: cut short by the end"
        let events = try Self.events(text, step: step)
        #expect(
            events == [
                ServerSentEvent(event: "update", data: "first\nsecond\n", id: "7", retry: 2_000),
                ServerSentEvent(event: "message", data: "no type", id: "7"),
                ServerSentEvent(event: "message", data: "id with NUL ignored", id: "7"),
                ServerSentEvent(event: "message", data: " two spaces", id: "7"),
            ])
    }

    @Test func anEventLargerThanTheLimitIsRefused() throws {
        var parser = ServerSentEventParser(maximumEventBytes: 10)
        _ = try parser.take(Array("data: 12345".utf8))
        #expect(throws: NetOpsError.self) { _ = try parser.take(Array("data: 67890".utf8)) }
    }
}
