import Foundation

/// Writes the recipe's method enum for the operations of an import (`--swift FILE`): one case
/// per operation, with its path template, HTTP method, encoding, accepted statuses and template
/// name, ready to commit beside the templates.
package enum RecipeSwiftWriter {
    /// The Swift source of `enumName`.
    ///
    /// - Parameters:
    ///   - operations: The import's operations; those without a usable name are left out.
    ///   - enumName: The enum's name (a Swift type name).
    ///   - title: The description's title, for the doc comment.
    ///   - command: The command that wrote the file, for its header.
    package static func source(for operations: [ImportedOperation], enumName: String, title: String, command: String) -> String {
        let callable = operations.filter(\.isCallable)
        let names = caseNames(for: callable.map(\.name))
        var lines: [String] = []
        lines.append("// Written by `\(command)`.")
        lines.append("// Regenerate it rather than edit it: the templates and this enum come from the same description.")
        lines.append("")
        lines.append("import APILayer")
        lines.append("import NetOps")
        lines.append("import Validator")
        lines.append("")
        lines.append("/// The operations of \(oneLine(title)), in the recipe's form: a case per operation, whose raw value is")
        lines.append("/// its operationId and the name of its template. Give it a scope of its own in an extension")
        lines.append("/// (`static var api: APIScope { … }`) when it is not the service's default API.")
        lines.append("public enum \(enumName): String, APIMethod, CaseIterable {")
        for (operation, name) in zip(callable, names) {
            let summary = operation.summary.map(oneLine) ?? "\(operation.method.uppercased()) \(operation.path)"
            lines.append("    /// \(summary)")
            lines.append("    case \(name) = \(literal(operation.name))")
        }
        guard !callable.isEmpty else {
            lines.append("}")
            return lines.joined(separator: "\n") + "\n"
        }
        lines.append("")
        lines.append("    /// Where each method lives below the API's base URL; `{name}` placeholders come from the call.")
        appendSwitch(to: &lines, "public var path: String", callable, names) { literal(relativePath($0.path)) }
        lines.append("")
        lines.append("    /// The HTTP method of each operation.")
        appendSwitch(to: &lines, "public var httpMethod: HTTPMethod", callable, names) { ".\(httpMethodCase($0.method))" }
        lines.append("")
        lines.append("    /// How each operation's parameters travel: the query without a request body, else the body's type.")
        appendSwitch(to: &lines, "public var encoding: RequestEncoding", callable, names) { ".\($0.requestEncoding ?? "query")" }
        lines.append("")
        lines.append("    /// No parameter is sent unless the call gives it.")
        lines.append("    public var defaultParameters: Parameters { [:] }")
        if callable.contains(where: { $0.requestEncoding != nil && !$0.queryParameters.isEmpty }) {
            lines.append("")
            lines.append("    /// The query parameters of operations whose other parameters go in the body.")
            appendSwitch(to: &lines, "public var queryKeys: Set<String>", callable, names) { operation in
                guard operation.requestEncoding != nil, !operation.queryParameters.isEmpty else { return "[]" }
                return "[" + operation.queryParameters.map(literal).joined(separator: ", ") + "]"
            }
        }
        lines.append("")
        lines.append("    /// The success status the description declares for each operation.")
        appendSwitch(to: &lines, "public var acceptedStatuses: Set<Int>", callable, names) { operation in
            if operation.isWritten, let status = operation.status { return "[\(status)]" }
            if operation.successStatuses.isEmpty { return "Set(200..<300)" }
            return "[" + operation.successStatuses.map(String.init).joined(separator: ", ") + "]"
        }
        if callable.contains(where: { !$0.isWritten }) {
            lines.append("")
            lines.append("    /// Operations without a JSON success body have no template: nothing is validated.")
            appendSwitch(to: &lines, "public var validation: ValidationPolicy", callable, names) {
                $0.isWritten ? ".automatic(.all)" : ".custom { _ in [] }"
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func appendSwitch(
        to lines: inout [String], _ declaration: String, _ operations: [ImportedOperation], _ names: [String],
        value: (ImportedOperation) -> String
    ) {
        lines.append("    \(declaration) {")
        lines.append("        switch self {")
        for (operation, name) in zip(operations, names) {
            lines.append("        case .\(name): return \(value(operation))")
        }
        lines.append("        }")
        lines.append("    }")
    }

    /// The path without its leading `/`: recipe paths are joined to the API's base URL.
    static func relativePath(_ path: String) -> String {
        String(path.drop { $0 == "/" })
    }

    private static func httpMethodCase(_ method: String) -> String {
        switch method {
        case "get", "head", "post", "put", "patch", "delete": return method
        default: return "get"
        }
    }

    /// A Swift string literal of `text`.
    static func literal(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    private static func oneLine(_ text: String) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
        return flat.count > 110 ? String(flat.prefix(109)) + "…" : flat
    }

    /// Lower-camel-case Swift identifiers for the names, unique, ASCII only.
    static func caseNames(for names: [String]) -> [String] {
        var used: Set<String> = []
        return names.map { name in
            let words = name.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }.map(String.init)
            var identifier = ""
            for (index, word) in words.enumerated() {
                if index == 0 {
                    identifier += word.prefix(1).lowercased() + word.dropFirst()
                } else {
                    identifier += word.prefix(1).uppercased() + word.dropFirst()
                }
            }
            if identifier.isEmpty { identifier = "operation" }
            if identifier.first!.isNumber { identifier = "operation" + identifier }
            if keywords.contains(identifier) { identifier += "Operation" }
            var unique = identifier
            var counter = 2
            while used.contains(unique) {
                unique = identifier + String(counter)
                counter += 1
            }
            used.insert(unique)
            return unique
        }
    }

    private static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout", "internal", "let",
        "open", "operator", "private", "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var", "break",
        "case", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "switch",
        "where", "while", "as", "catch", "false", "is", "nil", "super", "self", "throw", "throws", "true", "try", "await", "async",
        "any", "some", "package", "consuming", "borrowing", "api", "path", "rawValue", "encoding", "headers", "validation",
        "httpMethod", "templateName", "queryKeys", "acceptedStatuses", "defaultParameters", "tokenPlacement", "bodyError", "errorModel",
        "allCases", "hashValue", "description", "Type", "Self", "Any", "Protocol",
    ]
}
