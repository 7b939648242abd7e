import Foundation
import NetOps

/// Why settings could not be read from a `ConfigReader`: the full key (`tracker.totalTimeout`)
/// and what is wrong with its value.
///
/// The description names the key and what was expected, never the value read: a service that
/// refuses to start prints it as it is, whether or not the key holds a secret.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the key's value.
    public enum Reason: Sendable, Equatable {
        /// The key is required here and no provider has it.
        case missing
        /// The value is not of the type the key takes (`a number of seconds`, `true or false`…).
        case wrongType(expected: String)
        /// The value is of the right type but outside the range the key accepts (`at least 1`).
        case outOfRange(String)
        /// The value is not one the key accepts (`one of direct, environment, http, socks5`).
        case invalid(String)
        /// The value names a file that cannot be used: why, naming the file, never its content.
        case unusableFile(String)
    }

    /// The full key, as the reader's providers are asked for it: `tracker.proxy.port`.
    public let key: String
    /// What is wrong with its value.
    public let reason: Reason

    /// An error about `key`.
    public init(key: String, reason: Reason) {
        self.key = key
        self.reason = reason
    }

    /// e.g. `configuration key tracker.totalTimeout: expected a number of seconds`.
    public var description: String {
        let what: String
        switch reason {
        case .missing: what = "required, and no provider has it"
        case let .wrongType(expected): what = "expected \(expected)"
        case let .outOfRange(range): what = "out of range: must be \(range)"
        case let .invalid(accepted): what = "not accepted: must be \(accepted)"
        case let .unusableFile(why): what = why
        }
        return "configuration key \(key): \(what)"
    }
}
