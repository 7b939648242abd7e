import Configuration
import Foundation
import NetOps

/// A `ConfigReader` as NetOps' and APILayer's `init(configReader:)` read it: a missing key is
/// nil (the setting keeps its default), a key present with a value of the wrong type or out of
/// range throws a `ConfigurationError` naming the full key, never the value.
///
/// swift-configuration's optional reads (`int(forKey:)`) answer nil for a value of the wrong
/// type as for a missing one, and would let a typo in a deployment pass for a default: every
/// read here is a required read whose "missing" error alone means nil.
@available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
package struct ConfigSettingsReader: Sendable {
    /// The reader, scoped to the section being read.
    package let reader: ConfigReader
    /// The section's key components from the providers' root (`["tracker", "proxy"]`), for errors.
    package let prefix: [String]

    /// Reads through `reader`, which may be scoped already (`reader.scoped(to: "tracker")`).
    package init(_ reader: ConfigReader) {
        self.init(reader: reader, prefix: Self.keyPrefix(of: reader))
    }

    private init(reader: ConfigReader, prefix: [String]) {
        self.reader = reader
        self.prefix = prefix
    }

    /// The section `name` of this one (`proxy`: its keys are `proxy.host`, …).
    package func scoped(to name: String) -> ConfigSettingsReader {
        ConfigSettingsReader(reader: reader.scoped(to: ConfigKey([name])), prefix: prefix + [name])
    }

    /// `key` with the section's prefix, as errors name it: `tracker.proxy.port`.
    package func fullKey(_ key: String) -> String { (prefix + [key]).joined(separator: ".") }

    /// The error about `key` for `reason`.
    package func error(_ key: String, _ reason: ConfigurationError.Reason) -> ConfigurationError {
        ConfigurationError(key: fullKey(key), reason: reason)
    }

    /// The prefix a scoped reader puts before every key. swift-configuration keeps it to itself;
    /// the reader's description shows it (`ConfigReader[keyPrefix: tracker, providers: …]`).
    /// Only error texts use it: a reader whose description says otherwise gives relative keys.
    static func keyPrefix(of reader: ConfigReader) -> [String] {
        let text = reader.description
        let opening = "ConfigReader[keyPrefix: "
        guard text.hasPrefix(opening), let end = text.range(of: ", providers: ") else { return [] }
        let start = text.index(text.startIndex, offsetBy: opening.count)
        guard start <= end.lowerBound else { return [] }
        return text[start..<end.lowerBound].split(separator: ".").map(String.init)
    }

    /// Whether `error` is swift-configuration's "no provider has this key" (its error type is not
    /// public: the case is told by its name).
    static func isMissing(_ error: any Error) -> Bool {
        Mirror(reflecting: error).children.first?.label == "missingRequiredConfigValue"
    }

    /// `read(key)`, nil when no provider has the key.
    ///
    /// - Throws: `ConfigurationError.Reason.wrongType(expected:)` when a provider has it but
    ///   `read` cannot take its value.
    private func value<Value>(_ key: String, expected: String, _ read: (ConfigKey) throws -> Value) throws -> Value? {
        do {
            return try read(ConfigKey([key]))
        } catch let failure where Self.isMissing(failure) {
            return nil
        } catch {
            throw self.error(key, .wrongType(expected: expected))
        }
    }

    /// A string; `isSecret` marks it for swift-configuration's access reporters.
    package func string(_ key: String, isSecret: Bool = false) throws -> String? {
        try value(key, expected: "a string") { try reader.requiredString(forKey: $0, isSecret: isSecret) }
    }

    /// `true` or `false` (`1`/`0`, `yes`/`no` where the provider reads them).
    package func bool(_ key: String) throws -> Bool? {
        try value(key, expected: "true or false") { try reader.requiredBool(forKey: $0) }
    }

    /// A whole number from `minimum` to `maximum`.
    package func int(_ key: String, atLeast minimum: Int, atMost maximum: Int = .max) throws -> Int? {
        let number = try value(key, expected: "a whole number") { key in
            do {
                return try reader.requiredInt(forKey: key)
            } catch let failure where !Self.isMissing(failure) {
                // An in-memory provider keeps `3.0` as a double, which an int read refuses.
                guard let whole = Int(exactly: try reader.requiredDouble(forKey: key)) else { throw failure }
                return whole
            }
        }
        guard let number else { return nil }
        guard number >= minimum, number <= maximum else {
            throw error(key, .outOfRange(maximum == .max ? "at least \(minimum)" : "from \(minimum) to \(maximum)"))
        }
        return number
    }

    /// A number of seconds, finite, above 0 when `positive`, else at least 0.
    package func seconds(_ key: String, positive: Bool) throws -> TimeInterval? {
        let expected = "a number of seconds"
        let seconds = try value(key, expected: expected) { key in
            do {
                return try reader.requiredDouble(forKey: key)
            } catch let failure where !Self.isMissing(failure) {
                // An in-memory provider keeps `30` as an int, which a double read refuses.
                guard let whole = try? reader.requiredInt(forKey: key) else { throw failure }
                return TimeInterval(whole)
            }
        }
        guard let seconds else { return nil }
        guard seconds.isFinite, positive ? seconds > 0 : seconds >= 0 else {
            throw error(key, .outOfRange(positive ? "more than 0 seconds" : "at least 0 seconds"))
        }
        return seconds
    }

    /// A number of seconds as `seconds(_:positive:)` reads it, or the string `none`: `.some(nil)`.
    package func secondsOrNone(_ key: String, positive: Bool) throws -> TimeInterval?? {
        try orNone(key, expected: "a number of seconds or none") { try seconds(key, positive: positive) }
    }

    /// A whole number as `int(_:atLeast:atMost:)` reads it, or the string `none`: `.some(nil)`.
    package func intOrNone(_ key: String, atLeast minimum: Int) throws -> Int?? {
        try orNone(key, expected: "a whole number or none") { try int(key, atLeast: minimum) }
    }

    /// What `read` gives for `key`, else `.some(nil)` when the key holds the string `none`.
    private func orNone<Value>(_ key: String, expected: String, _ read: () throws -> Value?) throws -> Value?? {
        do {
            return try read().map { .some($0) }
        } catch let failure as ConfigurationError {
            guard case .wrongType = failure.reason else { throw failure }
            guard (try? string(key)) == "none" else { throw error(key, .wrongType(expected: expected)) }
            return .some(nil)
        }
    }

    /// A list of strings (comma-separated in an environment variable).
    package func strings(_ key: String) throws -> [String]? {
        try value(key, expected: "a list of strings") { try reader.requiredStringArray(forKey: $0) }
    }

    /// A list of whole numbers (comma-separated in an environment variable).
    package func ints(_ key: String) throws -> [Int]? {
        try value(key, expected: "a list of whole numbers") { try reader.requiredIntArray(forKey: $0) }
    }

    /// An absolute http or https URL.
    package func url(_ key: String) throws -> URL? {
        guard let text = try string(key) else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else {
            throw error(key, .invalid("an absolute http or https URL"))
        }
        return url
    }

    /// One of the names in `choices`, as the value it stands for.
    package func choice<Value>(_ key: String, _ choices: KeyValuePairs<String, Value>) throws -> Value? {
        guard let text = try string(key) else { return nil }
        guard let match = choices.first(where: { $0.key == text }) else {
            throw error(key, .invalid("one of \(choices.map { $0.key }.joined(separator: ", "))"))
        }
        return match.value
    }

    /// `value`, which `key` must have given.
    ///
    /// - Throws: `ConfigurationError.Reason.missing` naming `key` when it is nil.
    package func required<Value>(_ key: String, _ value: Value?) throws -> Value {
        guard let value else { throw error(key, .missing) }
        return value
    }

    /// The text of the file whose path `key` gives, trimmed of surrounding white space: a secret
    /// kept in a file of its own (a mounted secret, a `*_FILE` variable's convention). The file
    /// is read as `SecretFile` reads it: a regular file others may not read and only its owner
    /// may write, owned by this process's user or root, at most 1 MiB. Errors name the key and
    /// the path (and a mode), never the content.
    package func secretFile(_ key: String) throws -> String? {
        guard let path = try string(key) else { return nil }
        let data: Data
        do {
            data = try SecretFile.read(path)
        } catch {
            throw self.error(key, .unusableFile(error.description))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw error(key, .unusableFile("the file is not UTF-8 text: \(path)"))
        }
        let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !secret.isEmpty else { throw error(key, .unusableFile("the file is empty: \(path)")) }
        return secret
    }
}
