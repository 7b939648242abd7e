import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The check every request passes before an engine sees it, the same for both engines: nothing a
/// caller, an interceptor or a server (a token from a JSON body) put into a request can add a
/// header line or a second request on the wire.
///
/// - A method is an RFC 9110 token (`GET`, `PATCH`, `PROPFIND`; no space, CR or LF).
/// - A field name is a token; a field value holds no control character but HTAB (RFC 9110 §5.5:
///   CR, LF and NUL are what a request smuggler needs). Bytes from U+0080 up (obs-text) pass.
/// - The fields the engine writes itself are dropped: `Content-Length` and `Transfer-Encoding`
///   (the body's framing: a `Content-Length` shorter than the body makes two requests of one on a
///   kept-alive connection), `Host`, the connection's own fields (`Connection`, `Keep-Alive`,
///   `Proxy-Connection`, `TE`, `Trailer`, `Upgrade`), and `Proxy-Authorization`: a proxy's
///   credentials go to the proxy alone, in the `CONNECT` the engine writes
///   (`ProxySettings.Credentials`); a caller's would travel inside the tunnel to the origin.
///
/// A refusal names the field, never its value (which may be a credential).
package enum RequestCheck {
    /// Fields a caller may not set: the engine frames the message and manages the connection.
    package static let engineOwnedFields: [String] = [
        "Content-Length", "Transfer-Encoding", "Host", "Connection", "Keep-Alive", "Proxy-Connection", "TE", "Trailer", "Upgrade",
        "Proxy-Authorization",
    ]

    /// `request` ready for an engine: its engine-owned fields dropped; or the reason it cannot go.
    package static func checked(_ request: URLRequest) -> Result<URLRequest, NetOpsError> {
        if let method = request.httpMethod, let refusal = refusal(ofMethod: method) {
            return .failure(NetOpsError(.invalidRequest(reason: refusal), url: request.url))
        }
        guard let fields = request.allHTTPHeaderFields, !fields.isEmpty else { return .success(request) }
        var dropped: [String] = []
        for (name, value) in fields {
            if let refusal = refusal(ofField: name, value: value) {
                return .failure(NetOpsError(.invalidRequest(reason: refusal), url: request.url))
            }
            if engineOwnedFields.contains(where: { name.caseInsensitiveEquals($0) }) { dropped.append(name) }
        }
        guard !dropped.isEmpty else { return .success(request) }
        var cleaned = request
        for name in dropped { cleaned.setValue(nil, forHTTPHeaderField: name) }
        return .success(cleaned)
    }

    /// Why the header `name: value` cannot go, or nil when it can.
    package static func refusal(ofField name: String, value: String) -> String? {
        guard isToken(name) else {
            return "the header name \(quoted(name)) holds a character a field name may not (RFC 9110 §5.1)"
        }
        guard isFieldValue(value) else {
            return "the value of the header \(name) holds a control character (CR, LF, NUL or another): it would break the request's framing"
        }
        return nil
    }

    /// Why `method` cannot go, or nil when it can.
    package static func refusal(ofMethod method: String) -> String? {
        isToken(method) ? nil : "the method \(quoted(method)) is not an HTTP token (RFC 9110 §9.1)"
    }

    /// The first refusal among `headers`, checked as they are given (before `URLRequest` drops a
    /// value it does not like without a word).
    package static func refusal(ofFields headers: [String: String]) -> String? {
        for (name, value) in headers {
            if let refusal = refusal(ofField: name, value: value) { return refusal }
        }
        return nil
    }

    /// RFC 9110's `token`: one or more of `!#$%&'*+-.^_`|~`, digits and letters.
    package static func isToken(_ text: String) -> Bool {
        guard !text.isEmpty else { return false }
        return text.utf8.allSatisfy(isTokenCharacter)
    }

    /// A field value: no control character but HTAB.
    package static func isFieldValue(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// A name shown in an error: control characters escaped, at most 64 characters.
    private static func quoted(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(64) {
            shown += scalar.value < 0x20 || scalar.value == 0x7F ? scalar.escaped(asASCII: true) : String(scalar)
        }
        return "\"" + shown + (text.unicodeScalars.count > 64 ? "…" : "") + "\""
    }
}
