import Foundation
import NetOps

/// Keeps a token across restarts of the service.
public protocol TokenStore: Sendable {
    /// The stored token; nil when there is none.
    ///
    /// - Throws: `TokenStoreError.corrupt` when something is stored but is not a token.
    func load() throws -> Token?
    /// Stores `token`, replacing what was there. Never leaves a half-written token behind.
    func save(_ token: Token) throws
    /// Deletes the stored token (nothing happens when there is none).
    func remove() throws
    /// What tells this store apart from another (a file's path, an object's identity), so that
    /// two APIs given the same store are noticed; nil when unknown.
    var storeIdentity: String? { get }
}

extension TokenStore {
    /// Unknown: sharing such a store between APIs goes unnoticed.
    public var storeIdentity: String? { nil }
}

/// Why a token store failed.
public enum TokenStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stored bytes are not a token (the file is reported, the token treated as absent).
    case corrupt(path: String, reason: String)
    /// The store could not be read or written.
    case io(path: String, reason: String)
    /// What is on disk is not safe to trust or to write through (a symbolic link, another
    /// user's file or folder, a file others may read, an oversized file): refused, with why.
    case insecure(path: String, reason: String)

    /// One readable line (never the token).
    public var description: String {
        switch self {
        case let .corrupt(path, reason): return "token store at \(path) is corrupt: \(reason)"
        case let .io(path, reason): return "token store at \(path) failed: \(reason)"
        case let .insecure(path, reason): return "token store at \(path) refused: \(reason)"
        }
    }
}

/// Keeps the token in memory only: for tests and short-lived processes.
public final class InMemoryTokenStore: TokenStore, Sendable {
    private let token: Locked<Token?>

    /// A store holding `token`.
    public init(_ token: Token? = nil) {
        self.token = Locked(token)
    }

    /// The token held.
    public func load() throws -> Token? { token.withLock { $0 } }
    /// Holds `token`.
    public func save(_ token: Token) throws { self.token.withLock { $0 = token } }
    /// Forgets the token.
    public func remove() throws { token.withLock { $0 = nil } }
    /// This object's identity.
    public var storeIdentity: String? { "memory:\(ObjectIdentifier(self).hashValue)" }
}
