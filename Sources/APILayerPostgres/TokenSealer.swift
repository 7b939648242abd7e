import APILayer
import Crypto
import Foundation

/// Seals a token for its row with AES-GCM (256-bit key), and opens it again.
///
/// The sealed bytes authenticate the table, the API, the account and the row's version as
/// additional data: a row copied to another API or account, or an older sealed token written
/// back over a newer version, does not open. The expiry is kept beside the sealed bytes, in a
/// column of its own on the database's clock, so it is not in the payload.
struct TokenSealer: Sendable {
    /// What the sealed payload holds: the token without its expiry.
    private struct Payload: Codable {
        var access: String
        var refresh: String?
        var user: String?
    }

    /// The first byte of every sealed value: the format, so that a later one can be told apart.
    private static let format: UInt8 = 1

    /// The keys' bytes (swift-crypto's `SymmetricKey` is not `Sendable`): the first seals,
    /// every one opens (the others sealed rows before a key rotation).
    private let keys: [Data]

    /// A sealer with `key`, opening rows sealed with `previousKeys` too.
    init(key: SymmetricKey, previousKeys: [SymmetricKey]) {
        keys = ([key] + previousKeys).map { $0.withUnsafeBytes { Data($0) } }
    }

    /// Whether `key` is a 256-bit key.
    static func isValid(_ key: SymmetricKey) -> Bool { key.bitCount == 256 }

    /// The sealed form of `token` for `row` at `version`.
    func seal(_ token: Token, row: TokenRow.Key, version: Int64) throws -> Data {
        let payload = try JSONEncoder().encode(Payload(access: token.accessToken, refresh: token.refreshToken, user: token.userID))
        let box = try AES.GCM.seal(payload, using: SymmetricKey(data: keys[0]), authenticating: Self.additionalData(row, version: version))
        guard let combined = box.combined else { throw PostgresTokenStoreError.sealing("AES-GCM gave no combined representation") }
        return Data([Self.format]) + combined
    }

    /// The token sealed in `sealed` for `row` at `version`, expiring at `expiresAt`.
    ///
    /// - Throws: `PostgresTokenStoreError.undecryptable` when no key opens it (a wrong key, a
    ///   tampered or moved row); the error never carries the bytes.
    func open(_ sealed: Data, row: TokenRow.Key, version: Int64, expiresAt: Date?) throws -> Token {
        guard sealed.first == Self.format, let box = try? AES.GCM.SealedBox(combined: sealed.dropFirst()) else {
            throw PostgresTokenStoreError.undecryptable(api: row.api, account: row.account, reason: "not a sealed token")
        }
        let additional = Self.additionalData(row, version: version)
        for candidate in keys {
            guard let plain = try? AES.GCM.open(box, using: SymmetricKey(data: candidate), authenticating: additional) else { continue }
            guard let payload = try? JSONDecoder().decode(Payload.self, from: plain) else {
                throw PostgresTokenStoreError.undecryptable(api: row.api, account: row.account, reason: "the payload is not a token")
            }
            return Token(accessToken: payload.access, refreshToken: payload.refresh, expiresAt: expiresAt, userID: payload.user)
        }
        throw PostgresTokenStoreError.undecryptable(
            api: row.api, account: row.account, reason: "no key opens it (a wrong key, or the row was altered or moved)")
    }

    /// The digest a refused refresh token is remembered by (SHA-256; the token itself is never stored).
    static func digest(of refreshToken: String) -> Data {
        Data(SHA256.hash(data: Data(refreshToken.utf8)))
    }

    private static func additionalData(_ row: TokenRow.Key, version: Int64) -> Data {
        Data("apilayer-token\u{0}\(row.table)\u{0}\(row.api)\u{0}\(row.account)\u{0}\(version)".utf8)
    }
}
