import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL

/// An HTTP/2 server over TLS (ALPN `h2` only) that breaks streams and connections the ways a real
/// HTTP/2 server can, for the bad-input cases a well-behaved DemoServer never produces.
///
/// Each request's path picks what happens; every body is `bodyLength` bytes announced:
/// - `/ok`: the whole body;
/// - `/rst-before-head`: `RST_STREAM` (INTERNAL_ERROR) instead of an answer;
/// - `/rst-mid-body`: the head and `faultAfter` bytes of the body, then `RST_STREAM`;
/// - `/goaway-mid-body`: the head and `faultAfter` bytes of the body, then `GOAWAY` naming this stream
///   as the last one processed (INTERNAL_ERROR), and the connection closes.
public final class HTTP2FaultServer: Sendable {
    /// The length of every body the server announces.
    public static let bodyLength = 256 << 10
    /// The bytes of a body sent before a fault: less than HTTP/2's initial flow-control window
    /// (65 535), so they go out whole before the fault follows.
    public static let faultAfter = 16 << 10

    private let channel: any Channel
    /// The port the server listens on (127.0.0.1).
    public let port: Int

    /// Starts a server whose certificate chain and key are these PEM files.
    public init(certificate: URL, key: URL) async throws {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate.path).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: key.path, format: .pem)))
        configuration.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: configuration)
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .server, connectionConfiguration: .init(), streamConfiguration: .init()
                    ) { stream in
                        stream.eventLoop.makeCompletedFuture { try stream.pipeline.syncOperations.addHandler(FaultStream()) }
                    }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    /// `https://127.0.0.1:port/path`.
    public func url(_ path: String) -> URL {
        URL(string: "https://127.0.0.1:\(port)/\(path)")!
    }

    /// Closes the listening socket.
    public func stop() async {
        try? await channel.close()
    }
}

/// Answers one stream as its path says (`HTTP2FaultServer`).
private final class FaultStream: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case let .headers(request) = unwrapInboundIn(data) else { return }
        let path = request.headers.first(name: ":path") ?? "/"
        if path.hasPrefix("/rst-before-head") {
            context.writeAndFlush(wrapOutboundOut(.rstStream(.internalError)), promise: nil)
            return
        }
        let head: HPACKHeaders = [
            ":status": "200", "content-length": String(HTTP2FaultServer.bodyLength), "content-type": "application/octet-stream",
        ]
        context.write(wrapOutboundOut(.headers(.init(headers: head))), promise: nil)
        let whole = !path.hasPrefix("/rst-mid-body") && !path.hasPrefix("/goaway-mid-body")
        let length = whole ? HTTP2FaultServer.bodyLength : HTTP2FaultServer.faultAfter
        let body = ByteBuffer(repeating: UInt8(ascii: "x"), count: length)
        let sent = context.writeAndFlush(wrapOutboundOut(.data(.init(data: .byteBuffer(body), endStream: whole))))
        guard !whole else { return }
        // The fault follows the data once it went out: a reset drops a stream's unsent data.
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let reset = path.hasPrefix("/rst-mid-body")
        sent.whenComplete { _ in
            let context = loopBound.value
            if reset {
                context.writeAndFlush(NIOAny(HTTP2Frame.FramePayload.rstStream(.internalError)), promise: nil)
            } else {
                Self.goAway(context)
            }
        }
    }

    /// Sends GOAWAY on the stream's connection, naming this stream the last one processed, and
    /// closes the connection.
    private static func goAway(_ context: ChannelHandlerContext) {
        guard let connection = context.channel.parent, let streamID = try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)
        else { return }
        let goAway = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: streamID, errorCode: .internalError, opaqueData: nil))
        connection.writeAndFlush(goAway).whenComplete { _ in connection.close(promise: nil) }
    }
}
