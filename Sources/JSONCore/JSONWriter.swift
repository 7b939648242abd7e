/// Writes a `JSONValue` as UTF-8 bytes.
struct JSONWriter {
    let pretty: Bool
    /// Once the output is longer than this many bytes, writing stops (for excerpts): a huge or
    /// deeply nested value then costs no more than its first bytes.
    let limit: Int
    var output: [UInt8] = []
    /// Whether writing stopped at `limit`, leaving the output incomplete.
    private(set) var truncated = false

    init(pretty: Bool, limit: Int = .max) {
        self.pretty = pretty
        self.limit = limit
    }

    mutating func write(_ value: JSONValue, indent: Int) {
        if output.count > limit {
            truncated = true
            return
        }
        switch value {
        case .null:
            append("null")
        case .bool(let flag):
            append(flag ? "true" : "false")
        case .int(let number):
            append(String(number))
        case .double(let number):
            append(Self.format(number))
        case .string(let text):
            writeString(text)
        case .array(let elements):
            guard !elements.isEmpty else { return append("[]") }
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if output.count > limit {
                    truncated = true
                    return
                }
                if position > 0 { output.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                write(element, indent: indent + 1)
            }
            newline(indent)
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else { return append("{}") }
            output.append(UInt8(ascii: "{"))
            let keys = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (position, key) in keys.enumerated() {
                if output.count > limit {
                    truncated = true
                    return
                }
                if position > 0 { output.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                writeString(key)
                output.append(UInt8(ascii: ":"))
                if pretty { output.append(UInt8(ascii: " ")) }
                write(members[key] ?? .null, indent: indent + 1)
            }
            newline(indent)
            output.append(UInt8(ascii: "}"))
        }
    }

    /// The shortest text that parses back to `number` as a floating-point JSON number.
    static func format(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        var text = number.description
        if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) { text += ".0" }
        return text
    }

    private mutating func newline(_ level: Int) {
        guard pretty else { return }
        output.append(0x0A)
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level * 2))
    }

    private mutating func append(_ text: String) {
        output.append(contentsOf: text.utf8)
    }

    private mutating func writeString(_ text: String) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            case 0..<0x20:
                let digits = String(byte, radix: 16, uppercase: true)
                append("\\u00" + (digits.count == 1 ? "0" + digits : digits))
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
