import Foundation

/// A JSON Pointer (RFC 6901): the location of one value inside a JSON document.
///
/// The empty pointer `""` is the whole document; `/users/0/name` is key `name` of element 0 of
/// key `users`. In a reference token `~` is written `~0` and `/` is written `~1`, so the key
/// `a/b` is `/a~1b`. `description` is the escaped text form.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    /// The unescaped reference tokens, outermost first.
    public var tokens: [String]

    /// The pointer made of these unescaped tokens.
    public init(tokens: [String] = []) {
        self.tokens = tokens
    }

    /// Parses the escaped text form, e.g. `/a~1b/0`.
    ///
    /// Returns `nil` when `text` is neither empty nor starts with `/`, or holds a `~` not followed
    /// by `0` or `1`.
    public init?(_ text: String) {
        guard !text.isEmpty else {
            self.tokens = []
            return
        }
        guard text.hasPrefix("/") else { return nil }
        var tokens: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var iterator = raw.makeIterator()
            while let character = iterator.next() {
                guard character == "~" else {
                    token.append(character)
                    continue
                }
                switch iterator.next() {
                case "0": token.append("~")
                case "1": token.append("/")
                default: return nil
                }
            }
            tokens.append(token)
        }
        self.tokens = tokens
    }

    /// The escaped text form (`""` for the whole document).
    public var description: String {
        var text = ""
        for token in tokens {
            text.append("/")
            text.append(Self.escape(token))
        }
        return text
    }

    /// This pointer followed by an object key.
    public func appending(key: String) -> JSONPointer {
        JSONPointer(tokens: tokens + [key])
    }

    /// This pointer followed by an array index.
    public func appending(index: Int) -> JSONPointer {
        JSONPointer(tokens: tokens + [String(index)])
    }

    /// The value this pointer designates inside `document`, or `nil` when there is none.
    public func resolve(in document: JSONValue) -> JSONValue? {
        var current = document
        for token in tokens {
            switch current {
            case .object(let members):
                guard let next = members[token] else { return nil }
                current = next
            case .array(let elements):
                guard let position = Int(token), token == String(position), elements.indices.contains(position) else { return nil }
                current = elements[position]
            default:
                return nil
            }
        }
        return current
    }

    /// Escapes one reference token: `~` becomes `~0`, `/` becomes `~1`.
    public static func escape(_ token: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
        return token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
}
