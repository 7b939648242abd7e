import Foundation

/// What never reaches a log line, a description or an error text: credential headers, secret
/// parameters and a URL's user info, each replaced by `<redacted>`.
///
/// The standard set covers the `Authorization`, `Proxy-Authorization`, `Cookie` and
/// `Set-Cookie` headers, the `access_token`, `token`, `password` and `secret` parameters (in a
/// query, a form or a JSON body) and `user:pass@` in a URL. A service adds its own names:
///
/// ```swift
/// let redaction = Redaction(headers: ["X-Api-Key"], parameters: ["client_secret"])
/// print(redaction.url(request.url!))            // …?client_secret=<redacted>&page=2
/// ```
///
/// Names compare without regard to case.
public struct Redaction: Sendable, Hashable {
    /// What replaces a secret.
    public static let placeholder = "<redacted>"

    /// The standard set.
    public static let standard = Redaction()

    /// Header names whose values are secret, lowercased.
    public private(set) var headerNames: Set<String>
    /// Query, form and JSON keys whose values are secret, lowercased.
    public private(set) var parameterKeys: Set<String>

    /// The standard set plus `headers` and `parameters`.
    public init(headers: Set<String> = [], parameters: Set<String> = []) {
        headerNames = Set(["authorization", "proxy-authorization", "cookie", "set-cookie"] + headers.map { $0.lowercased() })
        parameterKeys = Set(["access_token", "token", "password", "secret"] + parameters.map { $0.lowercased() })
    }

    /// This set with more names added.
    public func adding(headers: Set<String> = [], parameters: Set<String> = []) -> Redaction {
        var copy = self
        copy.headerNames.formUnion(headers.map { $0.lowercased() })
        copy.parameterKeys.formUnion(parameters.map { $0.lowercased() })
        return copy
    }

    /// True when the header named `name` carries a secret.
    public func isSecret(header name: String) -> Bool { headerNames.contains(name.lowercased()) }

    /// True when the parameter named `key` carries a secret.
    public func isSecret(parameter key: String) -> Bool { parameterKeys.contains(key.lowercased()) }

    /// `value`, or the placeholder when the header `name` is secret.
    public func header(_ name: String, value: String) -> String {
        isSecret(header: name) ? Self.placeholder : value
    }

    /// The headers with secret values replaced.
    public func headers(_ headers: [String: String]) -> [String: String] {
        var redacted = headers
        for (name, _) in headers where isSecret(header: name) { redacted[name] = Self.placeholder }
        return redacted
    }

    /// The URL as text, its user info and secret query values replaced; the rest (other
    /// parameters, the fragment) kept, so the line still says which request it was.
    public func url(_ url: URL) -> String {
        // Text surgery rather than `URLComponents`, which refuses `<` in a percent-encoded query.
        var text = url.absoluteString
        var fragment = ""
        if let hash = text.firstIndex(of: "#") {
            fragment = String(text[hash...])
            text = String(text[..<hash])
        }
        var query: String?
        if let mark = text.firstIndex(of: "?") {
            query = String(text[text.index(after: mark)...])
            text = String(text[..<mark])
        }
        if let scheme = text.range(of: "://") {
            let authorityEnd = text[scheme.upperBound...].firstIndex(of: "/") ?? text.endIndex
            if let at = text[scheme.upperBound..<authorityEnd].lastIndex(of: "@") {
                text.replaceSubrange(scheme.upperBound..<at, with: Self.placeholder)
            }
        }
        if let query { text += "?" + redactedPairs(query) }
        return text + fragment
    }

    /// The URL without query, fragment and user info: what OpenTelemetry's `url.full` may carry.
    public func urlWithoutQuery(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "<url>" }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        return components.string ?? "<url>"
    }

    /// A request body as text: form and JSON bodies with their secret values replaced, any
    /// other text as is, and binary data as its size.
    public func body(_ data: Data, contentType: String?) -> String {
        let type = contentType?.lowercased() ?? ""
        if type.contains("application/x-www-form-urlencoded"), let text = String(data: data, encoding: .utf8) {
            return redactedPairs(text)
        }
        if type.contains("json") || data.first == UInt8(ascii: "{") || data.first == UInt8(ascii: "["),
            let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        {
            let cleaned = redactedJSON(object)
            if let encoded = try? JSONSerialization.data(withJSONObject: cleaned, options: [.sortedKeys, .fragmentsAllowed]),
                let text = String(data: encoded, encoding: .utf8)
            {
                return text
            }
        }
        if !type.contains("multipart"), let plain = String(data: data, encoding: .utf8) { return text(plain) }
        return "<\(data.count) bytes>"
    }

    /// Free text (an error message, a server's reason) with anything that looks like a secret
    /// replaced: `key=value` and `"key": "value"` for the secret keys, `Bearer …` and `Basic …`
    /// credentials, and a URL's `user:pass@`.
    public func text(_ text: String) -> String {
        var result = text
        let lowered = text.lowercased()
        if lowered.contains("bearer") || text.contains("Basic") {
            result = replacing(#"\b((?i:bearer)|Basic)\s+[A-Za-z0-9._~+/=-]+"#, in: result, with: "$1 " + Self.placeholder)
        }
        if text.contains("@") {
            result = replacing(#"://[^/\s@?#<>]+@"#, in: result, with: "://" + Self.placeholder + "@")
        }
        for key in parameterKeys.sorted() where lowered.contains(key) {
            let name = NSRegularExpression.escapedPattern(for: key)
            result = replacing(#"(?i)(\b"# + name + #"=)[^&\s"']*"#, in: result, with: "$1" + Self.placeholder)
            result = replacing(
                #"(?i)("# + "\"" + name + "\"" + #"\s*:\s*)"(?:[^"\\]|\\.)*""#, in: result,
                with: "$1\"" + Self.placeholder + "\"")
        }
        for name in headerNames.sorted() where lowered.contains(name) {
            let escaped = NSRegularExpression.escapedPattern(for: name)
            result = replacing(#"(?im)(^|[\s'"])("# + escaped + #":\s*)[^\r\n'"]*"#, in: result, with: "$1$2" + Self.placeholder)
        }
        return result
    }

    // MARK: Helpers

    /// `a=1&access_token=x` → `a=1&access_token=<redacted>` (percent-encoded text in and out).
    private func redactedPairs(_ query: String) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let plainKey = key.replacingOccurrences(of: "+", with: " ")
            guard parts.count == 2, isSecret(parameter: plainKey) || isSecret(parameter: Self.bareKey(plainKey)) else {
                return String(pair)
            }
            return String(parts[0]) + "=" + Self.placeholder
        }.joined(separator: "&")
    }

    /// `user[password]` → `password`, `items[]` → `items`: the innermost name of a bracketed key.
    private static func bareKey(_ key: String) -> String {
        guard let open = key.lastIndex(of: "["), let close = key.lastIndex(of: "]"), open < close else { return key }
        let inner = key[key.index(after: open)..<close]
        return inner.isEmpty ? String(key[..<open]) : String(inner)
    }

    private func redactedJSON(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            var cleaned: [String: Any] = [:]
            for (key, inner) in object {
                cleaned[key] = isSecret(parameter: key) ? Self.placeholder : redactedJSON(inner)
            }
            return cleaned
        }
        if let array = value as? [Any] { return array.map(redactedJSON) }
        return value
    }

    private func replacing(_ pattern: String, in text: String, with template: String) -> String {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return text }
        let range = NSRange(text.startIndex..., in: text)
        return expression.stringByReplacingMatches(in: text, range: range, withTemplate: template)
    }
}
