import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP server on a loopback address that records the exact bytes of every request it receives
/// (where an HTTP server library would parse away what a smuggler sends) and answers with the
/// faults a hostile or broken server produces: a body dripped a byte at a time, an endless run of
/// informational heads, no answer at all.
///
/// Requests are split as a server would split them: a head up to the blank line, then a body of
/// `Content-Length` bytes or in chunked coding. A request a client smuggled inside another shows
/// up as one more recorded request.
///
/// A test that needs answers of its own (a validator with a control byte, a status for a
/// credential) gives `start(host:answer:)` a closure: it sees each request and returns the exact
/// bytes to write back, or nil for the routes' answer.
public final class RecordingHTTPServer: Sendable {
    /// One request as it arrived.
    public struct Request: Sendable {
        /// The head, request line and fields, exactly as received (CR LF kept).
        public let head: String
        /// The body bytes that followed it.
        public let body: Data

        /// The request line, e.g. `GET /ok?x=1 HTTP/1.1`.
        public var requestLine: String { String(head.split(separator: "\r\n", maxSplits: 1).first ?? "") }

        /// The request target of the request line: the path and the query, e.g. `/ok?x=1`.
        public var target: String { requestLine.split(separator: " ").dropFirst().first.map(String.init) ?? "/" }

        /// The field lines, each as received.
        public var fieldLines: [String] { head.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty } }

        /// The values of the fields named `name` (any case).
        public func values(of name: String) -> [String] {
            fieldLines.compactMap { line in
                guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == name.lowercased() else { return nil }
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
    }

    /// What the server answers to a path.
    public enum Route: String, Sendable, CaseIterable {
        /// `200 OK` with the body `ok`, kept alive.
        case ok = "/ok"
        /// `200 OK` announcing 1 000 bytes and sending one byte every 100 ms (for at most 100 s).
        case drip = "/drip"
        /// `102 Processing` heads every 100 ms (for at most 100 s), never a final answer.
        case informational = "/informational"
        /// Never answers.
        case hold = "/hold"
    }

    /// The address the server listens on.
    public let host: String
    /// The port it listens on.
    public let port: Int
    private let channel: any Channel
    private let recorded: NIOLockedValueBox<[Request]>

    private init(host: String, port: Int, channel: any Channel, recorded: NIOLockedValueBox<[Request]>) {
        self.host = host
        self.port = port
        self.channel = channel
        self.recorded = recorded
    }

    /// `http://host:port` + `route`'s path + `query` (a `?…` string, may be empty).
    public func url(_ route: Route, query: String = "") -> URL {
        URL(string: "http://\(host):\(port)\(route.rawValue)\(query)")!
    }

    /// Every request received so far (a test starts a server of its own, so these are its own).
    public var requests: [Request] { recorded.withLockedValue { $0 } }

    /// Starts a server on `host` (a loopback address) on a port the system picks; `answer`, when
    /// given, writes the bytes it returns for each request (nil: the route's answer).
    public static func start(
        host: String = "127.0.0.1", answer: (@Sendable (Request) -> String?)? = nil
    ) async throws -> RecordingHTTPServer {
        let recorded = NIOLockedValueBox([Request]())
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RecordingHandler(recorded: recorded, scripted: answer))
                }
            }
            .bind(host: host, port: 0)
            .get()
        return RecordingHTTPServer(host: host, port: channel.localAddress?.port ?? 0, channel: channel, recorded: recorded)
    }

    /// Stops listening.
    public func stop() async {
        try? await channel.close()
    }
}

/// Splits one connection's bytes into requests, records them and answers each.
private final class RecordingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let recorded: NIOLockedValueBox<[RecordingHTTPServer.Request]>
    private let scripted: (@Sendable (RecordingHTTPServer.Request) -> String?)?
    private var pending = [UInt8]()
    private var stopped = false
    private var timer: RepeatedTask?

    init(recorded: NIOLockedValueBox<[RecordingHTTPServer.Request]>, scripted: (@Sendable (RecordingHTTPServer.Request) -> String?)?) {
        self.recorded = recorded
        self.scripted = scripted
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        pending += unwrapInboundIn(data).readableBytesView
        while !stopped, let (head, body, consumed) = nextRequest() {
            pending.removeFirst(consumed)
            let request = RecordingHTTPServer.Request(head: head, body: Data(body))
            recorded.withLockedValue { $0.append(request) }
            answer(request, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    /// The first complete request in what was read: its head, its body and how many bytes both took.
    private func nextRequest() -> (String, ArraySlice<UInt8>, Int)? {
        guard let end = Self.find([13, 10, 13, 10], in: pending[...]) else { return nil }
        let head = String(decoding: pending[..<end], as: UTF8.self)
        let bodyStart = end + 4
        let lines = head.components(separatedBy: "\r\n").map { $0.lowercased() }
        if lines.contains(where: { $0.hasPrefix("transfer-encoding:") && $0.contains("chunked") }) {
            var offset = bodyStart
            var body: [UInt8] = []
            while true {
                guard let lineEnd = Self.find([13, 10], in: pending[offset...]) else { return nil }
                let sizeText = String(decoding: pending[offset..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return (head, [], pending.count) }
                let dataStart = lineEnd + 2
                if size == 0 {
                    guard let trailerEnd = Self.find([13, 10], in: pending[dataStart...]) else { return nil }
                    return (head, body[...], trailerEnd + 2)
                }
                guard pending.count >= dataStart + size + 2 else { return nil }
                body += pending[dataStart..<(dataStart + size)]
                offset = dataStart + size + 2
            }
        }
        let length =
            lines.compactMap { line -> Int? in
                guard line.hasPrefix("content-length:") else { return nil }
                return Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
            }.first ?? 0
        guard pending.count >= bodyStart + length else { return nil }
        return (head, pending[bodyStart..<(bodyStart + length)], bodyStart + length)
    }

    private static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = haystack.startIndex
        while index <= haystack.endIndex - needle.count {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    private func answer(_ request: RecordingHTTPServer.Request, context: ChannelHandlerContext) {
        if let text = scripted?(request) {
            write(text, context: context)
            return
        }
        let target = request.requestLine.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        let path = String(target.split(separator: "?", maxSplits: 1).first ?? "")
        switch RecordingHTTPServer.Route(rawValue: path) {
        case .ok:
            write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok", context: context)
        case .drip:
            stopped = true
            write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n", context: context)
            repeatEvery100ms(times: 1000, context: context, "x")
        case .informational:
            stopped = true
            repeatEvery100ms(times: 1000, context: context, "HTTP/1.1 102 Processing\r\n\r\n")
        case .hold:
            stopped = true
        case nil:
            write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", context: context)
        }
    }

    /// Writes `text` every 100 ms, `times` times at most (bounded: a client that gives up closes
    /// the connection sooner), then closes the connection.
    private func repeatEvery100ms(times: Int, context: ChannelHandlerContext, _ text: String) {
        let left = NIOLockedValueBox(times)
        let channel = context.channel
        timer = context.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(100), delay: .milliseconds(100)) { task in
            let more = left.withLockedValue { left -> Bool in
                left -= 1
                return left >= 0
            }
            guard channel.isActive, more else {
                task.cancel()
                channel.close(promise: nil)
                return
            }
            channel.writeAndFlush(channel.allocator.buffer(string: text), promise: nil)
        }
    }

    private func write(_ text: String, context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: text)), promise: nil)
    }
}
