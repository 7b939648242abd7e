import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import NetOps

/// Maps AsyncHTTPClient's and SwiftNIO's errors onto NetOps' engine-neutral failures, the way
/// the URLSession engine maps `URLError`s, so operations report the same errors on both.
package enum NIOFailureMapping {
    /// The failure for `error`; `connected` tells whether the request head had been sent (an
    /// I/O error before that means no connection could be made). A body the engine's delegate
    /// refused (a coding it cannot decode, a decompression bomb, a corrupt or truncated encoded
    /// body) carries its failure.
    package static func failure(from error: any Error, connected: Bool) -> TransferFailure {
        let reason = reason(for: error)
        if let refused = error as? NIOTransferDelegate.Refused {
            return refused.failure
        }
        if let client = error as? HTTPClientError {
            return failure(from: client, reason: reason)
        }
        if error is NIOConnectionError || error is ChannelError && !connected {
            return .cannotConnect(reason)
        }
        if error is IOError {
            return connected ? .connectionLost(reason) : .cannotConnect(reason)
        }
        if error is ChannelError || error is HTTPParserError {
            return .connectionLost(reason)
        }
        if Self.isUnfinishedHandshake(error) {
            return .cannotConnect("the connection closed before its proxy or TLS handshake finished")
        }
        if let http2 = http2Reason(for: error) {
            return .connectionLost(http2)
        }
        if let tls = NIOTLSFailure.reason(for: error) {
            return .tls(tls)
        }
        if let cocoa = error as? CocoaError, cocoa.isFileError {
            // Not the error's own description: it lists the user info in no fixed order, so one
            // failure would read differently from one call to the next.
            let path = cocoa.filePath ?? cocoa.url?.path
            return .file(path.map { "\(cocoa.localizedDescription) (\($0))" } ?? cocoa.localizedDescription)
        }
        return .other(code: (error as NSError).code, reason: reason)
    }

    /// The text of `error` for a failure: an `HTTPClientError` as its short description, which
    /// carries no associated value (`invalidHeaderFieldValues` holds the refused values, which may
    /// be credentials; no header value ever reaches an error text).
    /// AsyncHTTPClient's proxy (CONNECT, SOCKS) and TLS handlers fail a connection whose channel
    /// closed before they finished with an error type of their own, private, named `NoResult`:
    /// only its name tells it.
    static func isUnfinishedHandshake(_ error: any Error) -> Bool {
        String(describing: type(of: error)) == "NoResult"
    }

    static func reason(for error: any Error) -> String {
        guard let client = error as? HTTPClientError else { return String(describing: error) }
        let text = "HTTPClientError: \(client.shortDescription)"
        if client == .invalidProxyResponse {
            return text + " (the proxy refused the tunnel: wrong credentials, or a host or port it does not open)"
        }
        if client == .proxyAuthenticationRequired { return text + " (the proxy wants credentials: ProxySettings.Credentials)" }
        return text
    }

    /// The text of an HTTP/2 failure: a stream the server reset (`RST_STREAM`), or a protocol
    /// error of the connection (a header list over the 16 KiB AsyncHTTPClient advertises, say),
    /// without the source location NIOHTTP2 appends; nil for any other error.
    static func http2Reason(for error: any Error) -> String? {
        if let closed = error as? NIOHTTP2Errors.StreamClosed {
            return "the HTTP/2 stream was closed with \(name(of: closed.errorCode)) before the response was complete"
        }
        guard error is any NIOHTTP2Error else { return nil }
        var text = String(describing: error)
        if let location = text.range(of: ", location: ") ?? text.range(of: "location: ") {
            text = String(text[..<location.lowerBound]) + (text.hasSuffix(")") ? ")" : "")
        }
        return "HTTP/2 protocol error: \(text)"
    }

    /// `INTERNAL_ERROR (0x2)` for HTTP/2's error code 2: the name RFC 9113 gives it.
    private static func name(of code: HTTP2ErrorCode) -> String {
        let names: [UInt32: String] = [
            0x0: "NO_ERROR", 0x1: "PROTOCOL_ERROR", 0x2: "INTERNAL_ERROR", 0x3: "FLOW_CONTROL_ERROR", 0x4: "SETTINGS_TIMEOUT",
            0x5: "STREAM_CLOSED", 0x6: "FRAME_SIZE_ERROR", 0x7: "REFUSED_STREAM", 0x8: "CANCEL", 0x9: "COMPRESSION_ERROR",
            0xa: "CONNECT_ERROR", 0xb: "ENHANCE_YOUR_CALM", 0xc: "INADEQUATE_SECURITY", 0xd: "HTTP_1_1_REQUIRED",
        ]
        let value = UInt32(code.networkCode)
        return "\(names[value] ?? "error code") (0x\(String(value, radix: 16)))"
    }

    private static let cancelled: [HTTPClientError] = [.cancelled, .requestStreamCancelled]
    private static let timedOut: [HTTPClientError] = [.readTimeout, .writeTimeout, .deadlineExceeded]
    private static let noConnection: [HTTPClientError] = [
        .connectTimeout, .alreadyShutdown, .socksHandshakeTimeout, .httpProxyHandshakeTimeout, .tlsHandshakeTimeout,
        .proxyAuthenticationRequired, .invalidProxyResponse, .getConnectionFromPoolTimeout,
    ]
    private static let lost: [HTTPClientError] = [.remoteConnectionClosed, .bodyLengthMismatch, .uncleanShutdown]
    private static let badURL: [HTTPClientError] = [.invalidURL, .emptyHost, .emptyScheme, .missingSocketPath]

    private static func failure(from error: HTTPClientError, reason: String) -> TransferFailure {
        if cancelled.contains(error) { return .cancelled }
        // Foundation's "too many redirects", as the URLSession engine reports a loop.
        if error == .redirectCycleDetected { return .other(code: -1007, reason: "redirect loop: a URL was requested before") }
        if error == .redirectLimitReached { return .other(code: -1007, reason: "too many redirects (the limit is maximumRedirects)") }
        if timedOut.contains(error) { return .timedOut }
        if noConnection.contains(error) { return .cannotConnect(reason) }
        if lost.contains(error) { return .connectionLost(reason) }
        if badURL.contains(error) || String(describing: error).contains("unsupportedScheme") { return .unsupportedURL(reason) }
        return .other(code: -1, reason: reason)
    }
}
