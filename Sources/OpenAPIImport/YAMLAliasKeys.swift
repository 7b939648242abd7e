/// Finds an alias used as a mapping key (`{*name: 1}`, `*name : 1`, `? *name`) in YAML text,
/// before Yams composes it.
///
/// Yams checks a mapping's keys for duplicates by hashing them, and a node hashes its whole
/// tree: an alias of a "billion laughs" structure (nine anchors of nine aliases each, a few
/// lines) used as a key costs exponential time in that check, before the expansion budget of
/// `YAMLConversion` is ever reached. An OpenAPI description never needs such a key, so any is
/// refused. The scan reads the text once, as a YAML scanner tokenizes it where it matters:
/// quoted scalars (over several lines), comments, block scalars (`|`, `>`), flow collections
/// and the node positions where an alias may start. A line it cannot place is scanned as YAML,
/// so that a doubt refuses a document rather than lets an alias key through.
enum YAMLAliasKeys {
    /// An alias used as a mapping key: its name and its line (from 1).
    struct Finding: Equatable {
        let name: String
        let line: Int
    }

    /// The first alias used as a mapping key in `text`, nil when there is none.
    static func first(in text: String) -> Finding? {
        var scanner = Scanner()
        var number = 0
        for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            if let name = scanner.scan(Array(line)) { return Finding(name: name, line: number) }
        }
        return nil
    }

    /// The scanner's state across lines.
    private struct Scanner {
        enum Quote { case single, double }
        var quote: Quote?
        var flowDepth = 0
        /// Inside a block scalar: lines indented more than this column belong to it.
        var blockScalarParent: Int?
        /// The next character starts a node (where an alias may begin).
        var atNodeStart = true
        /// The node starting next is an explicit key (`? `).
        var explicitKey = false

        static let space = UInt8(ascii: " ")
        static let tab = UInt8(ascii: "\t")

        static func isBlank(_ byte: UInt8?) -> Bool { byte == nil || byte == space || byte == tab || byte == UInt8(ascii: "\r") }

        static func isAnchorCharacter(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"):
                return true
            default:
                return false
            }
        }

        /// Whether `byte` ends a plain scalar or follows an indicator in flow context.
        static func isFlowIndicator(_ byte: UInt8?) -> Bool {
            guard let byte else { return false }
            return byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}")
                || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{")
        }

        /// Scans one line; returns the name of an alias used as a key when it finds one.
        mutating func scan(_ line: [UInt8]) -> String? {
            let indent = line.prefix { $0 == Self.space }.count
            if let parent = blockScalarParent {
                let blank = line.allSatisfy { Self.isBlank($0) }
                if blank || indent > parent { return nil }
                blockScalarParent = nil
            }
            if quote == nil, flowDepth == 0 {
                atNodeStart = true
                explicitKey = false
            }
            var contentColumn = indent
            var index = quote == nil ? indent : 0
            while index < line.count {
                let byte = line[index]
                let next = index + 1 < line.count ? line[index + 1] : nil
                if let open = quote {
                    if open == .double, byte == UInt8(ascii: "\\") {
                        index += 2
                        continue
                    }
                    if open == .double, byte == UInt8(ascii: "\"") { quote = nil }
                    if open == .single, byte == UInt8(ascii: "'") {
                        if next == UInt8(ascii: "'") {
                            index += 2
                            continue
                        }
                        quote = nil
                    }
                    index += 1
                    continue
                }
                if byte == Self.space || byte == Self.tab || byte == UInt8(ascii: "\r") {
                    index += 1
                    continue
                }
                if byte == UInt8(ascii: "#"), index == 0 || Self.isBlank(line[index - 1]) { return nil }
                if atNodeStart {
                    switch byte {
                    case UInt8(ascii: "-") where Self.isBlank(next) && flowDepth == 0:
                        contentColumn = index + 2
                        index += 1
                        continue
                    case UInt8(ascii: "?") where Self.isBlank(next) || (flowDepth > 0 && Self.isFlowIndicator(next)):
                        explicitKey = true
                        index += 1
                        continue
                    case UInt8(ascii: ":") where Self.isBlank(next) || (flowDepth > 0 && Self.isFlowIndicator(next)):
                        explicitKey = false
                        index += 1
                        continue
                    case UInt8(ascii: "["), UInt8(ascii: "{"):
                        flowDepth += 1
                        index += 1
                        continue
                    case UInt8(ascii: "]"), UInt8(ascii: "}"):
                        flowDepth = max(0, flowDepth - 1)
                        atNodeStart = false
                        index += 1
                        continue
                    case UInt8(ascii: ",") where flowDepth > 0:
                        explicitKey = false
                        index += 1
                        continue
                    case UInt8(ascii: "&"), UInt8(ascii: "!"):
                        // An anchor or a tag: the node itself comes after it.
                        while index < line.count, !Self.isBlank(line[index]), !(flowDepth > 0 && Self.isFlowIndicator(line[index])) {
                            index += 1
                        }
                        continue
                    case UInt8(ascii: "*"):
                        var end = index + 1
                        while end < line.count, Self.isAnchorCharacter(line[end]) { end += 1 }
                        let name = String(decoding: line[(index + 1)..<end], as: UTF8.self)
                        var after = end
                        while after < line.count, line[after] == Self.space || line[after] == Self.tab { after += 1 }
                        let following = after + 1 < line.count ? line[after + 1] : nil
                        let colonFollows =
                            after < line.count && line[after] == UInt8(ascii: ":")
                            && (Self.isBlank(following) || (flowDepth > 0 && Self.isFlowIndicator(following)))
                        if explicitKey || colonFollows { return name.isEmpty ? "*" : name }
                        atNodeStart = false
                        index = end
                        continue
                    case UInt8(ascii: "\""):
                        quote = .double
                        atNodeStart = false
                        index += 1
                        continue
                    case UInt8(ascii: "'"):
                        quote = .single
                        atNodeStart = false
                        index += 1
                        continue
                    case UInt8(ascii: "|"), UInt8(ascii: ">"):
                        guard flowDepth == 0 else {
                            atNodeStart = false
                            break
                        }
                        blockScalarParent = contentColumn
                        return nil
                    default:
                        atNodeStart = false
                        explicitKey = false
                    }
                } else {
                    // Inside a plain scalar or after a node: only indicators matter.
                    switch byte {
                    case UInt8(ascii: ":") where Self.isBlank(next) || (flowDepth > 0 && Self.isFlowIndicator(next)):
                        atNodeStart = true
                        explicitKey = false
                    case UInt8(ascii: ",") where flowDepth > 0:
                        atNodeStart = true
                        explicitKey = false
                    case UInt8(ascii: "]"), UInt8(ascii: "}"):
                        if flowDepth > 0 { flowDepth -= 1 }
                    case UInt8(ascii: "["), UInt8(ascii: "{"):
                        if flowDepth > 0 {
                            flowDepth += 1
                            atNodeStart = true
                        }
                    default:
                        break
                    }
                }
                index += 1
            }
            return nil
        }
    }
}
