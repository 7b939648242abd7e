import NIOSSL

/// The text of a TLS failure from NIOSSL or BoringSSL: the library's own names for what failed,
/// without the source paths and line numbers of the build BoringSSL's errors carry, and a
/// plain-words hint for the common causes.
enum NIOTLSFailure {
    /// The reason for `error` when it is a TLS failure, else nil.
    static func reason(for error: any Error) -> String? {
        let text: String
        switch error {
        case let ssl as NIOSSLError:
            switch ssl {
            case let .handshakeFailed(boring): text = "handshake failed: \(boring)"
            case .uncleanShutdown: text = "the server closed the TLS connection without a close_notify"
            default: text = String(describing: ssl)
            }
        case let extra as NIOSSLExtraError:
            text = String(describing: extra)
        case let boring as BoringSSLError:
            text = String(describing: boring)
        default:
            return nil
        }
        let clean = withoutBuildPaths(text)
        return hint(for: clean).map { clean + " (" + $0 + ")" } ?? clean
    }

    /// What the usual BoringSSL reasons mean for the caller.
    private static let hints: [(reason: String, meaning: String)] = [
        ("CERTIFICATE_VERIFY_FAILED", "the server's certificate chain leads to no trusted root, or a certificate in it expired or is not valid yet"),
        ("failedToValidateHostname", "the server's certificate is for another host name"),
        ("CERTIFICATE_REQUIRED", "the server requires a client certificate (TLSSettings clientCertificate)"),
        ("HANDSHAKE_FAILURE", "the server refused the handshake: it may require a client certificate, or accept none of the client's ciphers"),
        ("BAD_CERTIFICATE", "the server refused the client certificate"),
        ("UNKNOWN_CA", "the server does not trust the client certificate's issuer"),
        ("UNSUPPORTED_PROTOCOL", "no TLS version both sides accept (TLSSettings minimumVersion)"),
        ("PROTOCOL_VERSION", "no TLS version both sides accept (TLSSettings minimumVersion)"),
        ("WRONG_VERSION_NUMBER", "the server did not answer in TLS: is it cleartext HTTP?"),
    ]

    private static func hint(for text: String) -> String? {
        hints.first { text.contains($0.reason) }?.meaning
    }

    /// `text` without the ` at /path/to/file.cc:123` each BoringSSL error ends with.
    static func withoutBuildPaths(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let marker = rest.range(of: " at /") {
            result += rest[..<marker.lowerBound]
            let path = rest[marker.upperBound...]
            // The path ends at the first `:` followed by the line number.
            var end = path.endIndex
            var index = path.startIndex
            while index < path.endIndex {
                if path[index] == ":" {
                    let digits = path[path.index(after: index)...].prefix { $0.isNumber }
                    if !digits.isEmpty {
                        end = digits.endIndex
                        break
                    }
                }
                index = path.index(after: index)
            }
            rest = path[end...]
        }
        return result + rest
    }
}
