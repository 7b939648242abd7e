import Foundation
import NetOps

/// A method's path with `{name}` placeholders, filled from a call's parameters.
///
/// Each value becomes exactly one path segment: everything but RFC 3986's unreserved
/// characters is percent-encoded, so a `/`, `?` or `#` in a value never changes the path. A
/// value that is `.` or `..` would still be read as a dot-segment by servers that decode before
/// normalising, so it is refused, as are empty values and values that are not scalars.
enum PathTemplate {
    /// `path` with every placeholder replaced by its parameter's encoded value; the parameters
    /// used are removed from `parameters` (they are not sent again in the query or body).
    ///
    /// - Returns: the filled path, or the reason it cannot be filled.
    static func fill(_ path: String, from parameters: inout Parameters) -> Result<String, PathTemplateError> {
        // Searched by UTF-8 code unit: braces are ASCII, and a search by `Character` segments
        // the path into grapheme clusters first.
        let open = UInt8(ascii: "{")
        let close = UInt8(ascii: "}")
        guard path.utf8.contains(where: { $0 == open || $0 == close }) else { return .success(path) }
        var filled = ""
        var used: [String] = []
        var rest = Substring(path)
        while let opening = rest.utf8.firstIndex(of: open) {
            filled += rest[..<opening]
            let nameStart = rest.utf8.index(after: opening)
            guard let closing = rest.utf8[nameStart...].firstIndex(of: close) else { return .failure(.unclosedPlaceholder(path: path)) }
            let name = String(rest[nameStart..<closing])
            guard !name.isEmpty, !name.utf8.contains(open) else { return .failure(.unclosedPlaceholder(path: path)) }
            guard let value = parameters[name] else { return .failure(.missingValue(name: name, path: path)) }
            switch segment(from: value) {
            case let .success(text):
                guard !text.isEmpty else { return .failure(.emptyValue(name: name)) }
                guard text != ".", text != ".." else { return .failure(.dotSegment(name: name, value: text)) }
                filled += RequestFactory.escape(text)
            case .failure:
                return .failure(.notAScalar(name: name))
            }
            used.append(name)
            rest = rest[rest.utf8.index(after: closing)...]
        }
        guard !rest.utf8.contains(close) else { return .failure(.unclosedPlaceholder(path: path)) }
        filled += rest
        for name in used { parameters[name] = nil }
        return .success(filled)
    }

    /// The `Redaction` path patterns that hide the values of `path`'s placeholders whose name
    /// `redaction` calls secret (`{token}`, `{api_key}`, `{webhookSecret}`), anchored after
    /// `base`'s path: `/*/hooks/*/{secret}` for `hooks/{id}/{token}` under `/v1/`. A segment of
    /// text and one placeholder hides the placeholder's part (`bot{token}` → `bot{secret}`); a
    /// segment of several placeholders is hidden whole. Empty when no name is secret.
    static func secretPatterns(of path: String, base: URL?, redaction: Redaction) -> [String] {
        guard path.utf8.contains(UInt8(ascii: "{")) else { return [] }
        let methodPath = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        var segments: [String] = []
        var secret = false
        for segment in methodPath.split(separator: "/", omittingEmptySubsequences: true) {
            let names = placeholders(in: segment)
            guard names.contains(where: { redaction.isSecret(parameter: $0) }) else {
                segments.append("*")
                continue
            }
            secret = true
            if names.count == 1, let open = segment.firstIndex(of: "{"), let close = segment.firstIndex(of: "}") {
                segments.append(segment[..<open] + "{secret}" + segment[segment.index(after: close)...])
            } else {
                segments.append("{secret}")
            }
        }
        guard secret else { return [] }
        let baseSegments = (base?.path ?? "").split(separator: "/", omittingEmptySubsequences: true).map { _ in "*" }
        return ["/" + (baseSegments + segments).joined(separator: "/")]
    }

    /// The names of the `{name}` placeholders in `segment`.
    private static func placeholders(in segment: Substring) -> [String] {
        var names: [String] = []
        var rest = segment
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    private struct NotAScalar: Error {}

    /// The text of a scalar parameter value.
    private static func segment(from value: any Sendable) -> Result<String, NotAScalar> {
        switch value {
        case let text as String: return .success(text)
        case let text as Substring: return .success(String(text))
        case let flag as Bool: return .success(flag ? "true" : "false")
        case let number as any BinaryInteger: return .success(String(describing: number))
        case let number as Double: return .success(String(describing: number))
        case is [any Sendable], is [String: any Sendable]: return .failure(NotAScalar())
        case let value as any CustomStringConvertible: return .success(value.description)
        default: return .failure(NotAScalar())
        }
    }
}

/// Why a method's path could not be filled.
enum PathTemplateError: Error, Equatable, CustomStringConvertible {
    case unclosedPlaceholder(path: String)
    case missingValue(name: String, path: String)
    case emptyValue(name: String)
    case dotSegment(name: String, value: String)
    case notAScalar(name: String)

    var description: String {
        switch self {
        case let .unclosedPlaceholder(path): return "the path \"\(path)\" has a placeholder that is not closed"
        case let .missingValue(name, path): return "no value for the path placeholder {\(name)} of \"\(path)\""
        case let .emptyValue(name): return "the path placeholder {\(name)} is empty"
        case let .dotSegment(name, value): return "the path placeholder {\(name)} is \"\(value)\", which would change the path"
        case let .notAScalar(name): return "the path placeholder {\(name)} needs a single value (a string or a number)"
        }
    }
}
