import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Builds `URLRequest`s from a method, a URL, parameters and headers.
public enum RequestFactory {
    /// A request, or the reason it cannot be built (kept by the operation and reported at start).
    public static func make(
        _ method: HTTPMethod,
        _ url: some URLConvertible,
        parameters: Parameters = [:],
        encoding: ParameterEncoding? = nil,
        headers: [String: String] = [:]
    ) -> Result<URLRequest, NetOpsError> {
        let target: URL
        do { target = try url.asURL() } catch { return .failure(error) }
        // Checked before `URLRequest` sees them: it drops a value with CR or LF without a word.
        if let refusal = RequestCheck.refusal(ofFields: headers) {
            return .failure(NetOpsError(.invalidRequest(reason: refusal), url: target))
        }
        var request = URLRequest(url: target)
        // GET is URLRequest's own default; setting it anyway costs a normalisation in Foundation.
        if method != .get { request.httpMethod = method.rawValue }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        guard !parameters.isEmpty else { return .success(request) }
        switch encoding ?? method.defaultEncoding {
        case .query:
            guard var components = URLComponents(url: target, resolvingAgainstBaseURL: false) else {
                return .failure(NetOpsError(.invalidURL(target.absoluteString), url: target))
            }
            let existing = components.percentEncodedQuery.map { $0 + "&" } ?? ""
            components.percentEncodedQuery = existing + formEncoded(parameters)
            guard let withQuery = components.url else {
                return .failure(NetOpsError(.invalidURL(target.absoluteString), url: target))
            }
            request.url = withQuery
        case .form:
            request.httpBody = Data(formEncoded(parameters).utf8)
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/x-www-form-urlencoded; charset=utf-8", forHTTPHeaderField: "Content-Type")
            }
        case .json:
            let object = parameters as [String: Any]
            guard JSONSerialization.isValidJSONObject(object),
                let body = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            else {
                return .failure(NetOpsError(.invalidBody(reason: "parameters are not representable as JSON"), url: target))
            }
            request.httpBody = body
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
        }
        return .success(request)
    }

    /// `key=value` pairs joined by `&`, keys sorted, percent-encoded; arrays repeat their key,
    /// dictionaries nest as `key[sub]`.
    public static func formEncoded(_ parameters: Parameters) -> String {
        var encoded = ""
        for key in parameters.keys.sorted() {
            append(parameters[key]!, as: key, to: &encoded)
        }
        return encoded
    }

    /// Appends `key=value` (after a `&` unless `encoded` is empty). The common scalars are cast
    /// first: each failed cast of an existential costs a runtime type check.
    private static func append(_ value: any Sendable, as key: String, to encoded: inout String) {
        func pair(_ text: String) {
            if !encoded.isEmpty { encoded += "&" }
            encoded += escape(key)
            encoded += "="
            encoded += text
        }
        switch value {
        case let text as String:
            pair(escape(text))
        case let flag as Bool:
            pair(flag ? "true" : "false")
        case let number as Int:
            pair(String(number))
        case let array as [any Sendable]:
            for element in array { append(element, as: key, to: &encoded) }
        case let dictionary as [String: any Sendable]:
            for subkey in dictionary.keys.sorted() {
                append(dictionary[subkey]!, as: "\(key)[\(subkey)]", to: &encoded)
            }
        default:
            pair(escape(String(describing: value)))
        }
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    public static func escape(_ text: String) -> String {
        // Byte by byte: Foundation's `addingPercentEncoding` goes through CFString on Linux and
        // cost a tenth of an API call answered from the cache (perf, Docs/http.md, "What a cached call costs").
        let utf8 = text.utf8
        guard utf8.contains(where: { !isUnreserved($0) }) else { return text }
        var escaped = [UInt8]()
        escaped.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if isUnreserved(byte) {
                escaped.append(byte)
            } else {
                escaped.append(UInt8(ascii: "%"))
                escaped.append(hexDigits[Int(byte >> 4)])
                escaped.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    /// RFC 3986's unreserved characters: letters, digits, `-`, `.`, `_`, `~`.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)
}
