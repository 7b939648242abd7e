import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP server on loopback that answers with exact bytes, for the faults an HTTP server library
/// never produces: a close before the headers or mid-body, a bad or conflicting
/// `Content-Length`, malformed chunked coding, a request body nobody reads, a HEAD, 204 or 304
/// answer whose headers announce a body that must not be read.
///
/// Each request's path picks the answer (`Route`); the query is free, so a test can tell its
/// own request apart (`sawRequest(_:)`). Connections stay open after an answer unless the route
/// closes them: a client that misreads an answer waits, and the test's bounded wait notices.
public final class RawHTTPServer: Sendable {
    /// What the server does once a request head with this path arrived.
    public enum Route: String, CaseIterable, Sendable {
        /// Closes the connection without answering.
        case closeBeforeHeaders = "/close-before-headers"
        /// A chunked 200 that stops after one chunk: the connection closes mid-body.
        case closeMidChunkedBody = "/close-mid-chunked-body"
        /// Announces 100 bytes, sends 10 and closes.
        case closeMidBody = "/close-mid-body"
        /// `Content-Length: ten`.
        case badContentLength = "/bad-content-length"
        /// Two `Content-Length` fields that disagree (5 and 10).
        case conflictingContentLength = "/conflicting-content-length"
        /// Chunked coding whose chunk size is not hexadecimal.
        case malformedChunked = "/malformed-chunked"
        /// Never answers (the request head was read).
        case hold = "/hold"
        /// Never answers and stops reading after the request head: the body fills the buffers.
        case neverReadsBody = "/never-reads-body"
        /// 200 with `Content-Length: 1234` and no body: the answer to a HEAD.
        case headAnswer = "/head-answer"
        /// 204 with no body.
        case noContent = "/no-content"
        /// 304 with an ETag and `Content-Length: 1234` (the representation's), no body.
        case notModified = "/not-modified"
        /// 307 to `/hold` with the same query: a redirect that keeps the method and the body on
        /// this origin, to a request that is never answered.
        case redirectToHold = "/redirect-to-hold"
        /// `FOOBAR` and a close: not HTTP at all.
        case notHTTP = "/not-http"
        /// A status line spelled `Http/1.1` (the version is case-sensitive).
        case badHTTPCase = "/bad-http-case"
        /// `HTTP/1.1 200` with no reason phrase.
        case noReason = "/no-reason"
        /// Status 999: three digits, outside every class.
        case status999 = "/status-999"
        /// A chunked body of no chunks.
        case emptyChunked = "/empty-chunked"
        /// A chunked body of 10 bytes followed by a trailer field.
        case trailers = "/trailers"
        /// Two `X-Test` fields, `one` and `two`.
        case multiValueHeader = "/multi-value-header"
        /// 204 with `Content-Length: 1000` and no body.
        case noContentWithLength = "/no-content-with-length"
        /// 200 with neither `Content-Length` nor chunked coding: the close ends the body.
        case noLengthHint = "/no-length-hint"

        /// The bytes sent after the request head, and whether the connection closes after them.
        var answer: (bytes: String, close: Bool)? {
            switch self {
            case .closeBeforeHeaders: return ("", true)
            case .closeMidChunkedBody:
                return ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\na\r\n0123456789\r\n", true)
            case .closeMidBody:
                return ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n0123456789", true)
            case .badContentLength:
                return ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ten\r\n\r\n0123456789", false)
            case .conflictingContentLength:
                return ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nContent-Length: 10\r\n\r\n0123456789", false)
            case .malformedChunked:
                return ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n0123456789\r\n0\r\n\r\n", false)
            case .hold, .neverReadsBody: return nil
            case .headAnswer:
                return ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1234\r\n\r\n", false)
            case .noContent: return ("HTTP/1.1 204 No Content\r\nX-Demo: empty\r\n\r\n", false)
            case .notModified:
                return ("HTTP/1.1 304 Not Modified\r\nETag: \"demo\"\r\nContent-Length: 1234\r\n\r\n", false)
            case .redirectToHold: return nil
            case .notHTTP: return ("FOOBAR", true)
            case .badHTTPCase: return ("Http/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", true)
            case .noReason: return ("HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nok", false)
            case .status999: return ("HTTP/1.1 999 Whatever\r\nContent-Length: 0\r\n\r\n", false)
            case .emptyChunked: return ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", false)
            case .trailers:
                return (
                    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Checksum\r\n\r\na\r\n0123456789\r\n0\r\nX-Checksum: 42\r\n\r\n",
                    false
                )
            case .noContentWithLength: return ("HTTP/1.1 204 No Content\r\nContent-Length: 1000\r\n\r\n", false)
            case .noLengthHint: return ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n0123456789", true)
            case .multiValueHeader: return ("HTTP/1.1 200 OK\r\nX-Test: one\r\nX-Test: two\r\nContent-Length: 0\r\n\r\n", false)
            }
        }
    }

    /// The port the server listens on (127.0.0.1).
    public let port: Int
    private let channel: any Channel
    private let seen: NIOLockedValueBox<Set<String>>

    private init(port: Int, channel: any Channel, seen: NIOLockedValueBox<Set<String>>) {
        self.port = port
        self.channel = channel
        self.seen = seen
    }

    private static let shared = Task { try await RawHTTPServer.start() }

    /// The process's one raw server, started on first use.
    public static func get() async throws -> RawHTTPServer {
        try await shared.value
    }

    /// `http://127.0.0.1:port` + `route`'s path + `query` (a `?…` string, may be empty).
    public func url(_ route: Route, query: String = "") -> URL {
        URL(string: "http://127.0.0.1:\(port)\(route.rawValue)\(query)")!
    }

    /// Whether a request head for `url`'s path and query arrived.
    public func sawRequest(_ url: URL) -> Bool {
        let target = url.path + (url.query.map { "?" + $0 } ?? "")
        return seen.withLockedValue { $0.contains(target) }
    }

    /// Starts a server on 127.0.0.1 on a port the system picks.
    public static func start() async throws -> RawHTTPServer {
        let seen = NIOLockedValueBox(Set<String>())
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RawHTTPHandler(seen: seen))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return RawHTTPServer(port: channel.localAddress?.port ?? 0, channel: channel, seen: seen)
    }
}

/// Reads request heads off one connection and answers each as its route says.
private final class RawHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let seen: NIOLockedValueBox<Set<String>>
    private var pending = [UInt8]()
    private var stopped = false

    init(seen: NIOLockedValueBox<Set<String>>) {
        self.seen = seen
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !stopped else { return }
        let buffer = unwrapInboundIn(data)
        pending += buffer.readableBytesView
        while !stopped, let end = headEnd() {
            let head = String(decoding: pending[..<end], as: UTF8.self)
            // A body is read before the answer, so the next request head starts where it ends;
            // except where the route is not to read it.
            let length = head.hasPrefix("POST /never-reads-body") || head.hasPrefix("PUT /never-reads-body") ? 0 : Self.contentLength(of: head)
            guard pending.count >= end + 4 + length else { return }
            pending.removeFirst(end + 4 + length)
            answer(head, context: context)
        }
    }

    /// The `Content-Length` of a request head, 0 without one.
    private static func contentLength(of head: String) -> Int {
        for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
            return Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return 0
    }

    /// The offset of the first `\r\n\r\n` in what was read.
    private func headEnd() -> Int? {
        guard pending.count >= 4 else { return nil }
        for index in 0...(pending.count - 4)
        where pending[index] == 13 && pending[index + 1] == 10 && pending[index + 2] == 13 && pending[index + 3] == 10 {
            return index
        }
        return nil
    }

    private func answer(_ head: String, context: ChannelHandlerContext) {
        let requestLine = head.split(separator: "\r\n", maxSplits: 1).first ?? ""
        let parts = requestLine.split(separator: " ")
        let target = parts.count > 1 ? String(parts[1]) : "/"
        seen.withLockedValue { _ = $0.insert(target) }
        let path = String(target.split(separator: "?", maxSplits: 1).first ?? "")
        guard let route = RawHTTPServer.Route(rawValue: path) else {
            write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", context: context)
            return
        }
        switch route {
        case .redirectToHold:
            let query = target.split(separator: "?", maxSplits: 1).dropFirst().first.map { "?" + $0 } ?? ""
            write("HTTP/1.1 307 Temporary Redirect\r\nLocation: /hold\(query)\r\nContent-Length: 0\r\n\r\n", context: context)
        case .hold:
            stopped = true
        case .neverReadsBody:
            stopped = true
            context.channel.setOption(.autoRead, value: false).whenComplete { _ in }
        default:
            guard let answer = route.answer else { return }
            if !answer.bytes.isEmpty { write(answer.bytes, context: context) }
            if answer.close {
                stopped = true
                context.close(promise: nil)
            }
        }
    }

    private func write(_ text: String, context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: text)), promise: nil)
    }
}
