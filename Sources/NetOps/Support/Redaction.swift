import Foundation

/// What never reaches a log line, a description or an error text: credential headers, secret
/// parameters and a URL's user info, each replaced by `<redacted>`.
///
/// The standard set covers the headers in `standardHeaders` (`Authorization`, `Authentication`,
/// `Proxy-Authorization`, `Cookie`, `Set-Cookie`, `X-Api-Key`, `Api-Key`, `Private-Token`,
/// `X-Auth-Token`, `X-Access-Token`, and — by the suffix rule below — every name ending in `Key`,
/// `Signature`, `Credential(s)`, `Token` or `Secret`: `Ocp-Apim-Subscription-Key`, `X-Auth-Key`,
/// `X-Hub-Signature-256`), the parameters in `standardParameters` (`access_token`,
/// `refresh_token`, `id_token`, `token`, `password`, `secret`, `client_secret`, `api_key`,
/// `apikey`, `client_assertion`, `code_verifier`…) in a query, a form or a JSON body, the
/// credential after `Bearer`, `Basic`, `Token` or `Digest`, and `user:pass@` in a URL. A service
/// adds its own names:
///
/// ```swift
/// let redaction = Redaction(headers: ["X-Tenant-Key"], parameters: ["pin"])
/// print(redaction.url(request.url!))            // …?pin=<redacted>&page=2
/// ```
///
/// Names compare without regard to case, `-` and `_` are the same, a camel-case name is split
/// (`refreshToken` is `refresh_token`), and a name that ends in a secret name after `_`, `-`,
/// `.` or a bracket, or before a number (`-256`, `_v2`), is secret too: `x_password`,
/// `user[password]`, `X-Client-Secret`, `next_page_token` and `X-Hub-Signature-256` are all
/// redacted. Redacting too much is the safe mistake.
///
/// A secret can sit in a URL's path too — a bot token (`/bot123456:AAE…/sendMessage`), a
/// webhook's key (`/services/T0/B0/XXXX`, `/api/webhooks/123/abc…`). Such paths are declared by
/// patterns (`paths:`): segments separated by `/`, each a literal, `*` (any one segment) or a
/// segment with `{secret}` in it (what it covers is hidden; the text around it must match); a
/// pattern that starts with `/` matches from the path's first segment, any other anywhere in the
/// path. A pattern without `{secret}` hides nothing. APILayer adds a pattern of its own for every
/// path placeholder whose name is secret (`{token}`, `{api_key}`…), so those values are hidden
/// without a declaration:
///
/// ```swift
/// let telegram = Redaction(paths: ["/bot{secret}"])
/// let slack = Redaction(paths: ["services/*/*/{secret}", "api/webhooks/*/{secret}"])
/// print(telegram.url(URL(string: "https://api.telegram.org/bot123:AAE-x/getMe")!))
/// // https://api.telegram.org/bot<redacted>/getMe
/// ```
///
/// Paths are hidden wherever a URL is shown: `url(_:)`, `urlWithoutQuery(_:)` (a span's
/// `url.full`), every `scheme://…` in free text (`text(_:)`: log lines, error texts), and a
/// `cURLDescription`. A redaction bound to a request's URL (as every API call's is) also hides
/// the secret values it found there wherever else they appear: a server's error page that echoes
/// its path, say.
public struct Redaction: Sendable, Hashable {
    /// What replaces a secret.
    public static let placeholder = "<redacted>"

    /// The standard set.
    public static let standard = Redaction()

    /// The header names the standard set treats as secret, lowercased; a header name that ends
    /// in one of them (or in a secret parameter name) is secret too.
    public static let standardHeaders: Set<String> = [
        "authorization", "authentication", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key", "private-token",
        "x-auth-token", "x-access-token", "key", "signature", "credential", "credentials",
    ]

    /// The parameter keys the standard set treats as secret, lowercased (the OAuth 2 and API-key names).
    public static let standardParameters: Set<String> = [
        "access_token", "refresh_token", "id_token", "token", "password", "passwd", "secret", "client_secret", "api_key",
        "apikey", "client_assertion", "code_verifier",
    ]

    /// The longest text `text(_:)` keeps, in UTF-8 bytes (8 KiB): what is longer is cut, with a
    /// note of how much was cut, before any pattern runs on it.
    public static let textLimit = 8_192

    /// Header names whose values are secret, lowercased.
    public var headerNames: Set<String> { names.headerNames }
    /// Query, form and JSON keys whose values are secret, lowercased.
    public var parameterKeys: Set<String> { names.parameterKeys }

    /// The names, in one immutable object: a copy of a `Redaction` (each transfer carries one,
    /// from the thread that starts it to the event loop that ends it) retains one object that
    /// every transfer shares, not four sets.
    private let names: Names

    /// The secret names and the forms they are compared in (see `normalized`), the path
    /// patterns, and the secret values found in a URL this redaction was bound to.
    private final class Names: Sendable {
        let headerNames: Set<String>
        let parameterKeys: Set<String>
        let headerForms: Set<String>
        let parameterForms: Set<String>
        let paths: [PathPattern]
        /// Longest first: a value that holds another is replaced whole.
        let values: [String]

        init(
            headerNames: Set<String>, parameterKeys: Set<String>, headerForms: Set<String>, parameterForms: Set<String>,
            paths: [PathPattern] = [], values: [String] = []
        ) {
            self.headerNames = headerNames
            self.parameterKeys = parameterKeys
            self.headerForms = headerForms
            self.parameterForms = parameterForms
            self.paths = paths
            self.values = values.sorted { $0.utf8.count > $1.utf8.count }
        }
    }

    /// The standard set plus `headers`, `parameters` and the path patterns `paths` (see above;
    /// a pattern without `{secret}` is ignored).
    public init(headers: Set<String> = [], parameters: Set<String> = [], paths: [String] = []) {
        let headerNames = Self.standardHeaders.union(headers.map { $0.lowercased() })
        let parameterKeys = Self.standardParameters.union(parameters.map { $0.lowercased() })
        names = Names(
            headerNames: headerNames, parameterKeys: parameterKeys, headerForms: Set(headerNames.map(Self.normalized)),
            parameterForms: Set(parameterKeys.map(Self.normalized)), paths: Self.patterns(paths, after: []))
    }

    private init(names: Names) {
        self.names = names
    }

    /// This set with more names and path patterns added.
    public func adding(headers: Set<String> = [], parameters: Set<String> = [], paths: [String] = []) -> Redaction {
        Redaction(
            names: Names(
                headerNames: headerNames.union(headers.map { $0.lowercased() }),
                parameterKeys: parameterKeys.union(parameters.map { $0.lowercased() }),
                headerForms: names.headerForms.union(headers.map(Self.normalized)),
                parameterForms: names.parameterForms.union(parameters.map(Self.normalized)),
                paths: Self.patterns(paths, after: names.paths), values: names.values))
    }

    /// The path patterns, as they were given.
    public var pathPatterns: [String] { names.paths.map(\.source) }

    /// Whether anything of a URL's path is hidden: patterns, or values found by a binding.
    package var hidesPathSecrets: Bool { !names.paths.isEmpty || !names.values.isEmpty }

    /// This redaction, also hiding wherever they appear the secret values its path patterns
    /// find in `url`'s path (as sent, and percent-decoded), of four bytes or more; itself when
    /// they find none.
    package func bound(to url: URL?) -> Redaction {
        guard !names.paths.isEmpty, let url else { return self }
        let text = url.absoluteString
        guard let path = Self.pathRange(in: text) else { return self }
        var found: [String] = []
        for range in secretRanges(inPath: text[path]) {
            let value = String(text[range])
            for form in [value, value.removingPercentEncoding ?? value] where form.utf8.count >= 4 && !found.contains(form) {
                found.append(form)
            }
        }
        let new = found.filter { !names.values.contains($0) }
        guard !new.isEmpty else { return self }
        return Redaction(
            names: Names(
                headerNames: names.headerNames, parameterKeys: names.parameterKeys, headerForms: names.headerForms,
                parameterForms: names.parameterForms, paths: names.paths, values: names.values + new))
    }

    /// Two redactions are equal when they treat the same names, paths and values as secret.
    public static func == (lhs: Redaction, rhs: Redaction) -> Bool {
        if lhs.names === rhs.names { return true }
        return lhs.headerNames == rhs.headerNames && lhs.parameterKeys == rhs.parameterKeys
            && lhs.names.headerForms == rhs.names.headerForms && lhs.names.parameterForms == rhs.names.parameterForms
            && lhs.names.paths == rhs.names.paths && lhs.names.values == rhs.names.values
    }

    /// Hashes the names treated as secret.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(headerNames)
        hasher.combine(parameterKeys)
        hasher.combine(names.paths)
    }

    /// `sources` parsed and appended to `existing`, without repeats.
    private static func patterns(_ sources: [String], after existing: [PathPattern]) -> [PathPattern] {
        var all = existing
        for pattern in sources.compactMap(PathPattern.init) where !all.contains(pattern) { all.append(pattern) }
        return all
    }

    /// True when the header named `name` carries a secret.
    /// A header named like a secret parameter (`X-Refresh-Token`, `X-Client-Secret`) is secret too.
    public func isSecret(header name: String) -> Bool {
        let form = Self.normalized(name)
        return Self.matches(form, names.headerForms) || Self.matches(form, names.parameterForms)
    }

    /// True when the parameter named `key` carries a secret.
    public func isSecret(parameter key: String) -> Bool { Self.matches(Self.normalized(key), names.parameterForms) }

    /// The placeholder when the header `name` is secret; any other value scrubbed as free text
    /// is (a `Bearer …` or `token=…` inside it), without being cut or escaped.
    public func header(_ name: String, value: String) -> String {
        isSecret(header: name) ? Self.placeholder : redacting(value)
    }

    /// The headers with secret values replaced; the value of any other header is scrubbed as
    /// free text is (a `Bearer …` or `token=…` inside it), without being cut or escaped.
    public func headers(_ headers: [String: String]) -> [String: String] {
        var redacted = headers
        for (name, value) in headers {
            redacted[name] = isSecret(header: name) ? Self.placeholder : redacting(value)
        }
        return redacted
    }

    /// `path` (as a URL carries it, percent-encoded) with what the path patterns cover
    /// replaced, and any secret value a binding found; a segment that is a template's
    /// placeholder (`{token}`) is a name, not a value, and stays.
    public func path(_ path: String) -> String {
        guard hidesPathSecrets else { return path }
        var text = path
        for range in secretRanges(inPath: text[...]).reversed() { text.replaceSubrange(range, with: Self.placeholder) }
        return replacingValues(in: text)
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
        text = redactingPath(ofURL: text)
        if let query { text += "?" + redactedPairs(query) }
        return replacingValues(in: text + fragment)
    }

    /// The URL without query, fragment and user info, and its secret path segments replaced:
    /// what OpenTelemetry's `url.full` may carry.
    public func urlWithoutQuery(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "<url>" }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        guard let text = components.string else { return "<url>" }
        return hidesPathSecrets ? replacingValues(in: redactingPath(ofURL: text)) : text
    }

    /// `text`, a URL without query and fragment (`scheme://authority/path`), with its path
    /// redacted as `path(_:)` does.
    private func redactingPath(ofURL text: String) -> String {
        guard !names.paths.isEmpty, let range = Self.pathRange(in: text) else { return text }
        var redacted = text
        for secret in secretRanges(inPath: text[range]).reversed() { redacted.replaceSubrange(secret, with: Self.placeholder) }
        return redacted
    }

    /// Where the path of `text` (`scheme://authority/path…`) starts and ends: up to a `?`,
    /// `#` or the end; nil when it has none.
    private static func pathRange(in text: String) -> Range<String.Index>? {
        guard let scheme = text.range(of: "://") else { return nil }
        let rest = text[scheme.upperBound...]
        guard let start = rest.firstIndex(of: "/") else { return nil }
        let end = rest[start...].firstIndex { $0 == "?" || $0 == "#" } ?? text.endIndex
        return start..<end
    }

    /// The ranges (in `path`'s string) every path pattern covers, in order, without overlaps.
    private func secretRanges(inPath path: Substring) -> [Range<String.Index>] {
        guard !names.paths.isEmpty else { return [] }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        var ranges: [Range<String.Index>] = []
        for pattern in names.paths { ranges += pattern.secretRanges(in: segments) }
        ranges.sort { $0.lowerBound < $1.lowerBound }
        var merged: [Range<String.Index>] = []
        for range in ranges {
            if let last = merged.last, range.lowerBound < last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }

    /// `text` with every secret value a binding found replaced.
    private func replacingValues(in text: String) -> String {
        var result = text
        for value in names.values where result.contains(value) {
            result = result.replacingOccurrences(of: value, with: Self.placeholder)
        }
        return result
    }

    /// Every `scheme://…` in free text with its path redacted.
    private func redactingURLPaths(in text: String) -> String {
        guard let pattern = Self.urlInTextPattern else { return text }
        let source = text as NSString
        let result = NSMutableString(string: text)
        for match in pattern.matches(in: text, range: NSRange(location: 0, length: source.length)).reversed() {
            let found = source.substring(with: match.range)
            let redacted = redactingPath(ofURL: found)
            if redacted != found { result.replaceCharacters(in: match.range, with: redacted) }
        }
        return result as String
    }

    /// `scheme://` and what follows up to a space, a quote or an angle bracket.
    private static let urlInTextPattern = try? NSRegularExpression(pattern: #"[A-Za-z][A-Za-z0-9+.-]*://[^\s'"<>]+"#)

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
        if !type.contains("multipart"), let plain = String(data: data, encoding: .utf8) { return redacting(plain) }
        return "<\(data.count) bytes>"
    }

    /// Free text (an error message, a server's reason) made safe for one log line or span
    /// attribute: cut to `textLimit` UTF-8 bytes (with a note of how much was cut), anything that
    /// looks like a secret replaced — `key=value` and `"key": "value"` for the secret keys, the
    /// value of a secret header written as `Name: value`, the whole credential after `Bearer`,
    /// `Basic`, `Token` or `Digest`, and a URL's `user:pass@` — and control characters (CR, LF,
    /// tab, NUL, the Unicode line separators and bidirectional overrides) written as escapes
    /// (`\n`, `\u{1B}`), so no text can forge a line of a log.
    public func text(_ text: String) -> String {
        self.text(text, limit: Self.textLimit)
    }

    /// `text(_:)` with a limit of `limit` UTF-8 bytes instead of `textLimit`.
    public func text(_ text: String, limit: Int) -> String {
        Self.escapingControlCharacters(redacting(Self.bounded(text, limit: limit)))
    }

    /// `text` cut to `limit` UTF-8 bytes (on a character boundary) with a note of how many bytes
    /// were cut; `text` itself when it fits.
    package static func bounded(_ text: String, limit: Int) -> String {
        let count = text.utf8.count
        guard count > limit else { return text }
        let utf8 = text.utf8
        var end = utf8.index(utf8.startIndex, offsetBy: max(limit, 0))
        // Back to the first byte of a scalar: a continuation byte is 0b10xxxxxx.
        while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 { utf8.formIndex(before: &end) }
        let head = String(decoding: utf8[..<end], as: UTF8.self)
        return head + "… [\(count - head.utf8.count) more bytes cut]"
    }

    /// `text` with every control character written as an escape: CR, LF and tab as `\r`, `\n`,
    /// `\t`, the others (C0, DEL, C1, U+2028, U+2029, the bidirectional controls) as `\u{…}`.
    package static func escapingControlCharacters(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": escaped.append(contentsOf: #"\n"#.unicodeScalars)
            case "\r": escaped.append(contentsOf: #"\r"#.unicodeScalars)
            case "\t": escaped.append(contentsOf: #"\t"#.unicodeScalars)
            case _ where needsEscape(scalar):
                escaped.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C:
            return true
        default:
            return false
        }
    }

    /// Free text with its secrets replaced; not cut, not escaped (a request body for `body(_:contentType:)`).
    private func redacting(_ text: String) -> String {
        var result = text
        if result.contains("Bearer") || result.lowercased().contains("bearer") || result.contains("Basic") || result.contains("Token")
            || result.contains("Digest")
        {
            result = Self.replacing(Self.credentialPattern, in: result, with: "$1$2" + Self.placeholder)
        }
        if result.contains("@") {
            result = Self.replacing(Self.userInfoPattern, in: result, with: "://" + Self.placeholder + "@")
        }
        if result.contains("=") {
            result = replacingValues(of: Self.pairPattern, in: result) { key in
                let plain = (key.removingPercentEncoding ?? key).replacingOccurrences(of: "+", with: " ")
                return isSecret(parameter: plain)
            }
        }
        if result.contains("\"") { result = redactingQuotedMembers(result) }
        if result.contains(":") {
            result = replacingValues(of: Self.headerLinePattern, in: result) { name in
                Self.matches(Self.normalized(name), names.headerForms)
            }
        }
        if !names.paths.isEmpty, result.contains("://") { result = redactingURLPaths(in: result) }
        return replacingValues(in: result)
    }

    /// `Bearer abc`, `Basic abc`, `Token abc`, `Digest abc`: the credential is any run of non-space characters.
    private static let credentialPattern = try? NSRegularExpression(pattern: #"\b((?i:bearer)|Basic|Token|Digest)(\s+)\S+"#)
    /// `scheme://user:pass@`.
    private static let userInfoPattern = try? NSRegularExpression(pattern: #"://[^/\s@?#<>]+@"#)
    /// `key=value`: group 1 the key (any run of key characters, so `_` or `-` before a secret name
    /// does not hide it), group 2 the value.
    private static let pairPattern = try? NSRegularExpression(
        pattern: #"(?<![A-Za-z0-9_.%+\[\]-])([A-Za-z0-9_.%+\[\]-]+)=([^&\s"'\\]*)"#)
    /// `Name: value` at the start of a line or after a space or quote: group 1 the name, group 2
    /// the value, up to the end of the line (a CR or LF, or its escape `\r`, `\n`).
    private static let headerLinePattern = try? NSRegularExpression(
        pattern: #"(?m)(?:^|(?<=[\s'"{,]))([A-Za-z][A-Za-z0-9_-]*):[ \t]*((?:[^\r\n'"\\]|\\(?![rn]))*)"#)
    /// `"key":` (or `\"key\":` inside an escaped string): group 1 the backslashes, group 2 the key.
    private static let quotedKeyPattern = try? NSRegularExpression(pattern: #"(\\*)"([^"\\\r\n]{1,256})\1"\s*:\s*"#)

    // MARK: Helpers

    /// `a=1&access_token=x` → `a=1&access_token=<redacted>` (percent-encoded text in and out).
    private func redactedPairs(_ query: String) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let plainKey = key.replacingOccurrences(of: "+", with: " ")
            guard parts.count == 2 else { return String(pair) }
            if isSecret(parameter: plainKey) || isSecret(parameter: Self.bareKey(plainKey)) {
                return String(parts[0]) + "=" + Self.placeholder
            }
            // A value that holds a secret itself (`note=refresh_token%3D…`) is replaced whole.
            let value = (String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(parts[1]))
            return redacting(value) == value ? String(pair) : String(parts[0]) + "=" + Self.placeholder
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
                cleaned[key] = isSecret(parameter: key) || isSecret(header: key) ? Self.placeholder : redactedJSON(inner)
            }
            return cleaned
        }
        if let array = value as? [Any] { return array.map(redactedJSON) }
        if let text = value as? String { return redacting(text) }
        return value
    }

    /// `name` lowercased, `-`, `.`, `[`, `]` and spaces as `_`, an `_` between a lowercase letter
    /// or digit and an uppercase one (`refreshToken` → `refresh_token`), no `_` at either end.
    private static func normalized(_ name: String) -> String {
        var form = ""
        form.reserveCapacity(name.utf8.count + 4)
        var previousIsLowerOrDigit = false
        for character in name {
            if character.isUppercase, previousIsLowerOrDigit { form.append("_") }
            previousIsLowerOrDigit = character.isLowercase || character.isNumber
            switch character {
            case "-", ".", "[", "]", " ": form.append("_")
            default: form.append(contentsOf: character.lowercased())
            }
        }
        return String(form.drop { $0 == "_" }.reversed().drop { $0 == "_" }.reversed())
    }

    /// True when `form` is one of `names`, or ends in one after an `_`, also once the numbers
    /// that end it are dropped (`x_hub_signature_256`, `api_key_v2`).
    private static func matches(_ form: String, _ names: Set<String>) -> Bool {
        if endsInName(Substring(form), names) { return true }
        var trimmed = Substring(form)
        while let separator = trimmed.lastIndex(of: "_"), isNumberOrVersion(trimmed[trimmed.index(after: separator)...]) {
            trimmed = trimmed[..<separator]
            if endsInName(trimmed, names) { return true }
        }
        return false
    }

    /// `256`, `v2`: a number, or `v` and a number.
    private static func isNumberOrVersion(_ part: Substring) -> Bool {
        let digits = part.first == "v" ? part.dropFirst() : part
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// True when `form` is one of `names`, or ends in one after an `_`.
    private static func endsInName(_ form: Substring, _ names: Set<String>) -> Bool {
        if names.contains(String(form)) { return true }
        var rest = form
        while let separator = rest.firstIndex(of: "_") {
            rest = rest[rest.index(after: separator)...]
            if names.contains(String(rest)) { return true }
        }
        return false
    }

    /// `text` with the value (group 2) of each match of `pattern` replaced where `isSecret` says
    /// so of its name (group 1).
    private func replacingValues(of pattern: NSRegularExpression?, in text: String, isSecret: (String) -> Bool) -> String {
        guard let pattern else { return text }
        let source = text as NSString
        let result = NSMutableString(string: text)
        let matches = pattern.matches(in: text, range: NSRange(location: 0, length: source.length))
        for match in matches.reversed() where isSecret(source.substring(with: match.range(at: 1))) {
            result.replaceCharacters(in: match.range(at: 2), with: Self.placeholder)
        }
        return result as String
    }

    /// `"key": value` and `\"key\": value` with the value replaced for a secret key (parameter
    /// or header name): a string up to its closing quote (to the end of the text when the text
    /// was cut inside it), anything else up to `,`, `}`, `]` or a space.
    private func redactingQuotedMembers(_ text: String) -> String {
        guard let pattern = Self.quotedKeyPattern else { return text }
        let source = text as NSString
        let length = source.length
        let result = NSMutableString(string: text)
        let quote = UInt16(UInt8(ascii: "\""))
        let backslash = UInt16(UInt8(ascii: "\\"))
        var replacements: [NSRange] = []
        for match in pattern.matches(in: text, range: NSRange(location: 0, length: length)) {
            let key = source.substring(with: match.range(at: 2))
            guard isSecret(parameter: key) || isSecret(header: key) else { continue }
            let level = match.range(at: 1).length
            var position = match.range.location + match.range.length
            // An opening quote at the key's escape level: a string value.
            var opening = position
            while opening < length, source.character(at: opening) == backslash, opening - position < level { opening += 1 }
            if opening - position == level, opening < length, source.character(at: opening) == quote {
                position = opening + 1
                var end = position
                while end < length {
                    if source.character(at: end) == quote {
                        var slashes = 0
                        while end - slashes - 1 >= position, source.character(at: end - slashes - 1) == backslash { slashes += 1 }
                        if slashes == level { break }
                    }
                    end += 1
                }
                let valueEnd = end < length ? end - level : end
                if valueEnd > position { replacements.append(NSRange(location: position, length: valueEnd - position)) }
            } else {
                var end = position
                while end < length {
                    let unit = source.character(at: end)
                    if [0x2C, 0x7D, 0x5D, 0x20, 0x0A, 0x0D, 0x09, quote, backslash].contains(unit) { break }
                    end += 1
                }
                if end > position { replacements.append(NSRange(location: position, length: end - position)) }
            }
        }
        var lastStart = Int.max
        for range in replacements.reversed() where range.location + range.length <= lastStart {
            result.replaceCharacters(in: range, with: Self.placeholder)
            lastStart = range.location
        }
        return result as String
    }

    private static func replacing(_ expression: NSRegularExpression?, in text: String, with template: String) -> String {
        guard let expression else { return text }
        let range = NSRange(text.startIndex..., in: text)
        return expression.stringByReplacingMatches(in: text, range: range, withTemplate: template)
    }
}

/// One path pattern of a `Redaction` (`/bot{secret}`, `services/*/*/{secret}`).
struct PathPattern: Sendable, Hashable {
    enum Segment: Sendable, Hashable {
        /// `*`: any one segment.
        case any
        /// A segment that must be exactly this.
        case literal(String)
        /// A segment that starts with `prefix` and ends with `suffix`, with at least one
        /// character between them: the secret.
        case secret(prefix: String, suffix: String)
    }

    /// The pattern as given.
    let source: String
    /// Whether it matches from the path's first segment only (it starts with `/`).
    let anchored: Bool
    let segments: [Segment]

    /// The pattern `source`; nil when it hides nothing (no `{secret}`).
    init?(_ source: String) {
        let trimmed = source.trimmingCharacters(in: .whitespaces)
        var segments: [Segment] = []
        for part in trimmed.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "*" {
                segments.append(.any)
            } else if let marker = part.range(of: "{secret}") {
                segments.append(.secret(prefix: String(part[..<marker.lowerBound]), suffix: String(part[marker.upperBound...])))
            } else {
                segments.append(.literal(String(part)))
            }
        }
        guard segments.contains(where: { if case .secret = $0 { return true } else { return false } }) else { return nil }
        self.source = source
        self.anchored = trimmed.hasPrefix("/")
        self.segments = segments
    }

    /// The ranges of the secrets in each run of `path` segments the pattern matches.
    func secretRanges(in path: [Substring]) -> [Range<String.Index>] {
        guard path.count >= segments.count else { return [] }
        let starts = anchored ? 0...0 : 0...(path.count - segments.count)
        var ranges: [Range<String.Index>] = []
        for start in starts {
            var found: [Range<String.Index>] = []
            var matched = true
            for (offset, segment) in segments.enumerated() {
                let part = path[start + offset]
                switch segment {
                case .any:
                    continue
                case let .literal(text):
                    matched = part == text
                case let .secret(prefix, suffix):
                    // A template's placeholder (`{token}`) names a value, it is not one.
                    let isPlaceholder = part.hasPrefix("{") && part.hasSuffix("}")
                    matched = !isPlaceholder && part.count > prefix.count + suffix.count && part.hasPrefix(prefix) && part.hasSuffix(suffix)
                    if matched {
                        found.append(part.index(part.startIndex, offsetBy: prefix.count)..<part.index(part.endIndex, offsetBy: -suffix.count))
                    }
                }
                if !matched { break }
            }
            if matched { ranges += found }
        }
        return ranges
    }
}
