import Foundation

/// An access token with what is known about it. Its values never appear in descriptions, dumps
/// or logs: printing a token shows only whether each part is there.
public struct Token: Sendable, Codable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The access token sent with requests.
    public var accessToken: String
    /// The refresh token that buys the next access token, when the service issues one.
    public var refreshToken: String?
    /// When the access token stops working, when the service says.
    public var expiresAt: Date?
    /// The user the token belongs to, when the service says.
    public var userID: String?

    /// The longest lifetime the built-in authenticators take from a token endpoint's
    /// `expires_in` (one year): a larger one is read as a year, so that no store fails to keep it.
    public static let maximumLifetime: TimeInterval = 365 * 86_400

    /// A token from its parts.
    public init(accessToken: String, refreshToken: String? = nil, expiresAt: Date? = nil, userID: String? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.userID = userID
    }

    /// Whether the token has expired, or will within `leeway` seconds.
    public func isExpired(leeway: TimeInterval = 0, now: Date = Date()) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt.timeIntervalSince(now) <= leeway
    }

    /// A redacted one-line summary, e.g. `Token(access: <redacted>, refresh: yes, expires: …)`.
    public var description: String {
        let expiry = expiresAt.map { "\($0)" } ?? "unknown"
        return "Token(access: <redacted>, refresh: \(refreshToken == nil ? "no" : "yes"), expires: \(expiry), user: \(userID ?? "unknown"))"
    }

    /// The same as `description`.
    public var debugDescription: String { description }

    /// A mirror without the secret values, so `dump(token)` stays safe.
    public var customMirror: Mirror {
        Mirror(self, children: ["description": description])
    }
}
