import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP server on 127.0.0.1 whose every answer a test scripts with a closure: a token endpoint
/// that answers `expires_in: 1e20`, a route that answers 401, a kept-alive connection closed
/// under its second request, a body that never ends. It records each request with the
/// connection it came on.
///
/// ```swift
/// let server = try await ScriptedHTTPServer.start { request in
///     request.path == "/oauth/token" ? .json(#"{"access_token":"a"}"#) : .status(401)
/// }
/// defer { Task { await server.stop() } }
/// ```
public final class ScriptedHTTPServer: Sendable {
    /// One request as it arrived.
    public struct Request: Sendable {
        /// `GET`, `POST`, …
        public let method: String
        /// The request target: path and query.
        public let target: String
        /// The fields, names in lower case, in order.
        public let fields: [(name: String, value: String)]
        /// The body (`Content-Length` bytes; chunked bodies are not read).
        public let body: Data
        /// The connection's number, from 0, in the order connections were accepted.
        public let connection: Int
        /// The request's number on its connection, from 0: 1 and up came on a kept-alive connection.
        public let indexOnConnection: Int

        /// The path, without the query.
        public var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }

        /// The value of the field `name` (any case), nil when absent.
        public func value(of name: String) -> String? {
            fields.first { $0.name == name.lowercased() }?.value
        }

        /// The body as UTF-8 text.
        public var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    /// What the server does with a request.
    public enum Reply: Sendable {
        /// An answer with this status, these fields (`Content-Length` is added) and body, after
        /// `delay` seconds; the connection stays open.
        case answer(status: Int, fields: [(String, String)], body: Data, delay: Double)
        /// Closes the connection without a byte of answer.
        case close
        /// A `200` with `Transfer-Encoding: chunked` whose chunks repeat `chunk`, written as fast
        /// as the client reads, until `limit` bytes were sent (then the body ends properly).
        case chunked(contentType: String, first: String, chunk: String, limit: Int)

        /// `200`, `application/json`, `text`.
        public static func json(_ text: String, status: Int = 200, delay: Double = 0) -> Reply {
            .answer(status: status, fields: [("Content-Type", "application/json")], body: Data(text.utf8), delay: delay)
        }

        /// `status` with an empty body.
        public static func status(_ status: Int, fields: [(String, String)] = []) -> Reply {
            .answer(status: status, fields: fields, body: Data(), delay: 0)
        }

        /// `200`, `text/plain`, `text`.
        public static func text(_ text: String) -> Reply {
            .answer(status: 200, fields: [("Content-Type", "text/plain")], body: Data(text.utf8), delay: 0)
        }
    }

    /// The port the server listens on, on 127.0.0.1.
    public let port: Int
    private let channel: any Channel
    private let recorded: NIOLockedValueBox<[Request]>
    private let streamed: NIOLockedValueBox<Int>

    private init(port: Int, channel: any Channel, recorded: NIOLockedValueBox<[Request]>, streamed: NIOLockedValueBox<Int>) {
        self.port = port
        self.channel = channel
        self.recorded = recorded
        self.streamed = streamed
    }

    /// `http://127.0.0.1:<port>` + `path`.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path.hasPrefix("/") ? path : "/" + path)")!
    }

    /// The requests so far, in the order they arrived.
    public var requests: [Request] { recorded.withLockedValue { $0 } }

    /// The bytes of `.chunked` bodies handed to the connections so far: a client that reads no
    /// faster than its reader (and stops at a limit) leaves most of a long body unsent.
    public var bytesStreamed: Int { streamed.withLockedValue { $0 } }

    /// The requests so far whose path is `path`.
    public func requests(to path: String) -> [Request] { requests.filter { $0.path == path } }

    /// Starts a server on 127.0.0.1, on a port the system picks, answering as `script` says.
    public static func start(_ script: @escaping @Sendable (Request) -> Reply) async throws -> ScriptedHTTPServer {
        let recorded = NIOLockedValueBox<[Request]>([])
        let streamed = NIOLockedValueBox(0)
        let connections = NIOLockedValueBox(0)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let number = connections.withLockedValue { count -> Int in
                    defer { count += 1 }
                    return count
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ScriptedHTTPHandler(connection: number, script: script, recorded: recorded, streamed: streamed))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return ScriptedHTTPServer(port: channel.localAddress?.port ?? 0, channel: channel, recorded: recorded, streamed: streamed)
    }

    /// Stops listening (connections open stay until their clients close them).
    public func stop() async {
        try? await channel.close()
    }
}

/// Reads requests off one connection and answers each as the script says.
private final class ScriptedHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let connection: Int
    private let script: @Sendable (ScriptedHTTPServer.Request) -> ScriptedHTTPServer.Reply
    private let recorded: NIOLockedValueBox<[ScriptedHTTPServer.Request]>
    private let streamed: NIOLockedValueBox<Int>
    private var pending: [UInt8] = []
    private var served = 0
    private var busy = false
    /// An endless body in progress: what is left to send of it.
    private var streaming: (chunk: ByteBuffer, left: Int)?

    init(
        connection: Int, script: @escaping @Sendable (ScriptedHTTPServer.Request) -> ScriptedHTTPServer.Reply,
        recorded: NIOLockedValueBox<[ScriptedHTTPServer.Request]>, streamed: NIOLockedValueBox<Int>
    ) {
        self.connection = connection
        self.script = script
        self.recorded = recorded
        self.streamed = streamed
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        pending += unwrapInboundIn(data).readableBytesView
        serveNext(context: context)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { continueStreaming(context: context) }
    }

    private func serveNext(context: ChannelHandlerContext) {
        while !busy, let request = nextRequest() {
            recorded.withLockedValue { $0.append(request) }
            served += 1
            perform(script(request), context: context)
        }
    }

    private func perform(_ reply: ScriptedHTTPServer.Reply, context: ChannelHandlerContext) {
        switch reply {
        case .close:
            busy = true
            context.close(promise: nil)
        case let .answer(status, fields, body, delay):
            var head = "HTTP/1.1 \(status) \(status < 400 ? "OK" : "Error")\r\n"
            for (name, value) in fields { head += "\(name): \(value)\r\n" }
            head += "Content-Length: \(body.count)\r\n\r\n"
            var buffer = context.channel.allocator.buffer(capacity: head.utf8.count + body.count)
            buffer.writeString(head)
            buffer.writeBytes(body)
            guard delay > 0 else {
                context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
                return
            }
            busy = true
            let answer = buffer
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: .milliseconds(Int64(delay * 1000))) {
                let (handler, context) = bound.value
                guard context.channel.isActive else { return }
                context.writeAndFlush(handler.wrapOutboundOut(answer), promise: nil)
                handler.busy = false
                handler.serveNext(context: context)
            }
        case let .chunked(contentType, first, chunk, limit):
            busy = true
            var head = context.channel.allocator.buffer(capacity: 256)
            head.writeString("HTTP/1.1 200 OK\r\nContent-Type: \(contentType)\r\nTransfer-Encoding: chunked\r\n\r\n")
            head.writeString(String(first.utf8.count, radix: 16) + "\r\n" + first + "\r\n")
            context.write(wrapOutboundOut(head), promise: nil)
            var piece = context.channel.allocator.buffer(capacity: chunk.utf8.count + 16)
            piece.writeString(String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n")
            streaming = (piece, limit)
            continueStreaming(context: context)
        }
    }

    /// Writes chunks of the endless body while the connection takes them.
    private func continueStreaming(context: ChannelHandlerContext) {
        guard var (chunk, left) = streaming else { return }
        var written = 0
        while context.channel.isWritable, left > 0 {
            context.write(wrapOutboundOut(chunk), promise: nil)
            left -= chunk.readableBytes
            written += chunk.readableBytes
        }
        streamed.withLockedValue { $0 += written }
        if left <= 0 {
            streaming = nil
            chunk = context.channel.allocator.buffer(string: "0\r\n\r\n")
            context.writeAndFlush(wrapOutboundOut(chunk), promise: nil)
            busy = false
            serveNext(context: context)
        } else {
            streaming = (chunk, left)
            context.flush()
        }
    }

    /// The next whole request in what was read, removed from it.
    private func nextRequest() -> ScriptedHTTPServer.Request? {
        guard pending.count >= 4 else { return nil }
        var end: Int?
        for index in 0...(pending.count - 4)
        where pending[index] == 13 && pending[index + 1] == 10 && pending[index + 2] == 13 && pending[index + 3] == 10 {
            end = index
            break
        }
        guard let end else { return nil }
        let head = String(decoding: pending[..<end], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.first?.split(separator: " ") ?? []
        let fields = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = fields.first { $0.name == "content-length" }.flatMap { Int($0.value) } ?? 0
        guard pending.count >= end + 4 + length else { return nil }
        let body = Data(pending[(end + 4)..<(end + 4 + length)])
        pending.removeFirst(end + 4 + length)
        return ScriptedHTTPServer.Request(
            method: requestLine.first.map(String.init) ?? "",
            target: requestLine.count > 1 ? String(requestLine[1]) : "/",
            fields: fields, body: body, connection: connection, indexOnConnection: served)
    }
}
