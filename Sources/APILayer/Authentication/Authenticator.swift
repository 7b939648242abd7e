import Foundation
import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Gets a fresh token when the current one no longer works.
///
/// APILayer calls `refresh(current:)` once for any number of requests that failed with 401
/// at the same time, never while holding a lock.
public protocol Authenticator: Sendable {
    /// A fresh token, given the current one (nil when there is none).
    ///
    /// - Throws: why no token could be had; every request waiting for it fails with this reason.
    func refresh(current: Token?) async throws -> Token
}

/// An authenticator made from a closure.
public struct ClosureAuthenticator: Authenticator {
    private let body: @Sendable (Token?) async throws -> Token

    /// Calls `body` for every refresh.
    public init(_ body: @escaping @Sendable (Token?) async throws -> Token) {
        self.body = body
    }

    /// Whatever the closure returns.
    public func refresh(current: Token?) async throws -> Token {
        try await body(current)
    }
}

/// Why a token could not be had.
public enum AuthenticationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// There is no refresh token to refresh with.
    case noRefreshToken
    /// The token endpoint answered with an error status (its `error` field, when it sent one).
    case tokenEndpoint(status: Int, error: String?)
    /// The token endpoint's answer is not a token.
    case malformedTokenResponse
    /// The token endpoint could not be reached, or did not answer in time.
    case transport(String)
    /// More refreshes than the guard allows in its window: the service keeps refusing fresh tokens.
    case excessiveRefresh(count: Int, window: TimeInterval)
    /// The refresh did not return within the coordinator's `refreshTimeout` seconds.
    case refreshTimedOut(seconds: TimeInterval)
    /// The token was removed (`removeToken()`) while a refresh ran: the refresh's result is
    /// dropped and what waited on it fails.
    case tokenRemovedDuringRefresh
    /// The coordinator was stopped (`AuthenticationCoordinator.stop()`, as `APIService` does on
    /// shutdown): the refresh running was abandoned and no other starts.
    case stopped
    /// The token endpoint is an `http://` URL of a host other than loopback: the client secret
    /// or refresh token would cross the network in clear. Nothing was sent; an authenticator's
    /// `allowsInsecureHTTP` lets it go.
    case insecureTokenURL(host: String)
    /// The token was removed (a logout), here or by another process sharing the store: it is
    /// not refreshed, and this process forgets it too. A new login is needed.
    case tokenRemoved

    /// One readable line (never a token).
    public var description: String {
        switch self {
        case .noRefreshToken: return "no refresh token to refresh with"
        case let .tokenEndpoint(status, error): return "token endpoint answered \(status)\(error.map { " (\($0))" } ?? "")"
        case .malformedTokenResponse: return "token endpoint's answer is not a token"
        case let .transport(reason): return "token endpoint unreachable: \(reason)"
        case let .excessiveRefresh(count, window): return "excessiveRefresh: \(count) token refreshes within \(Int(window)) s"
        case let .refreshTimedOut(seconds): return "the token refresh did not finish within \(seconds) s (refreshTimeout)"
        case .tokenRemovedDuringRefresh: return "the token was removed while it was being refreshed"
        case .stopped: return "the authentication was stopped: the service is shutting down"
        case .tokenRemoved: return "the token was removed (a logout): it is not refreshed; a new login is needed"
        case let .insecureTokenURL(host):
            return "the token endpoint at \(host) is http://: its credentials would travel in clear; use https, or set allowsInsecureHTTP"
        }
    }
}

/// OAuth 2.0 token endpoint requests (RFC 6749), shared by the grant types.
enum OAuthTokenEndpoint {
    /// The longest token response read: 1 MiB (a token answer is a few hundred bytes).
    static let maximumResponseBytes: Int64 = 1 << 20

    /// Posts `form` to `url` and reads the token in the answer; `previous` supplies a refresh
    /// token when the answer carries none.
    ///
    /// The request follows no redirect: its form carries the refresh token or the client
    /// secret, which go to the token endpoint and nowhere else.
    ///
    /// The request runs on `transport` (`NetworkSession.shared` when nil). An `http://` URL of a
    /// host other than loopback is refused before anything is sent, unless `allowsInsecureHTTP`.
    static func request(
        _ url: URL, form: [String: String], timeout: TimeInterval, previous: Token?, transport: TokenRequestTransport?,
        allowsInsecureHTTP: Bool
    ) async throws -> Token {
        if Loopback.isCleartextOffMachine(url), !allowsInsecureHTTP {
            throw AuthenticationError.insecureTokenURL(host: url.host ?? url.absoluteString)
        }
        let operation = DTO.post(url, parameters: form, encoding: .form, headers: ["Accept": "application/json"])
        transport?.apply(to: operation)
        operation.retryPolicy = RetryPolicy.none
        operation.followsRedirects = false
        operation.maximumResponseBodyBytes = maximumResponseBytes
        operation.totalTimeout = timeout
        operation.idleTimeout = timeout
        do {
            try await operation.run()
        } catch let error as NetOpsError {
            if let status = error.httpStatus {
                let body = try? JSONSerialization.jsonObject(with: operation.receivedData) as? [String: Any]
                throw AuthenticationError.tokenEndpoint(status: status, error: body?["error"] as? String)
            }
            throw AuthenticationError.transport(error.description)
        }
        guard let object = try? JSONSerialization.jsonObject(with: operation.receivedData) as? [String: Any],
            let access = object["access_token"] as? String, !access.isEmpty
        else {
            throw AuthenticationError.malformedTokenResponse
        }
        // A year at most: a lifetime past what a date or a database interval holds (`1e20`) would
        // make every store that keeps the expiry fail to write it.
        let expiresIn = (object["expires_in"] as? NSNumber).flatMap { number -> Double? in
            let seconds = number.doubleValue
            return seconds.isFinite ? min(max(seconds, 0), Token.maximumLifetime) : nil
        }
        let userID = (object["user_id"] as? String) ?? (object["user_id"] as? NSNumber)?.stringValue
        return Token(
            accessToken: access,
            refreshToken: (object["refresh_token"] as? String) ?? previous?.refreshToken,
            expiresAt: expiresIn.map { Date(timeIntervalSinceNow: $0) },
            userID: userID ?? previous?.userID
        )
    }
}

/// The OAuth 2.0 refresh-token grant (RFC 6749 §6): trades the current refresh token for a new
/// access token at the token endpoint.
public struct OAuthRefreshTokenAuthenticator: TokenEndpointAuthenticator {
    /// The token endpoint.
    public var tokenURL: URL
    /// The client's identifier, sent when set.
    public var clientID: String?
    /// The client's secret, sent when set.
    public var clientSecret: String?
    /// Seconds to wait for the token endpoint.
    public var timeout: TimeInterval
    /// Whether an `http://` `tokenURL` of a host other than loopback may be used (default false:
    /// the refresh fails with `AuthenticationError.insecureTokenURL` before anything is sent).
    public var allowsInsecureHTTP = false
    /// How the token endpoint is reached; nil (the default): as the API's calls are, when the
    /// authenticator refreshes for an `APIScope`, else on `NetworkSession.shared`.
    public var transport: TokenRequestTransport?

    /// An authenticator posting to `tokenURL`.
    public init(tokenURL: URL, clientID: String? = nil, clientSecret: String? = nil, timeout: TimeInterval = 15) {
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.timeout = timeout
    }

    /// A new token for `current`'s refresh token.
    ///
    /// - Throws: `AuthenticationError`.
    public func refresh(current: Token?) async throws -> Token {
        guard let refreshToken = current?.refreshToken else { throw AuthenticationError.noRefreshToken }
        var form = ["grant_type": "refresh_token", "refresh_token": refreshToken]
        form["client_id"] = clientID
        form["client_secret"] = clientSecret
        return try await OAuthTokenEndpoint.request(
            tokenURL, form: form, timeout: timeout, previous: current, transport: transport, allowsInsecureHTTP: allowsInsecureHTTP)
    }
}

/// The OAuth 2.0 client-credentials grant (RFC 6749 §4.4): a token for the service itself.
public struct OAuthClientCredentialsAuthenticator: TokenEndpointAuthenticator {
    /// The token endpoint.
    public var tokenURL: URL
    /// The client's identifier.
    public var clientID: String
    /// The client's secret.
    public var clientSecret: String
    /// The scope asked for, when set.
    public var scope: String?
    /// Seconds to wait for the token endpoint.
    public var timeout: TimeInterval
    /// Whether an `http://` `tokenURL` of a host other than loopback may be used (default false:
    /// the refresh fails with `AuthenticationError.insecureTokenURL` before anything is sent).
    public var allowsInsecureHTTP = false
    /// How the token endpoint is reached; nil (the default): as the API's calls are, when the
    /// authenticator refreshes for an `APIScope`, else on `NetworkSession.shared`.
    public var transport: TokenRequestTransport?

    /// An authenticator posting the client's credentials to `tokenURL`.
    public init(tokenURL: URL, clientID: String, clientSecret: String, scope: String? = nil, timeout: TimeInterval = 15) {
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.scope = scope
        self.timeout = timeout
    }

    /// A new token for the client.
    ///
    /// - Throws: `AuthenticationError`.
    public func refresh(current: Token?) async throws -> Token {
        var form = ["grant_type": "client_credentials", "client_id": clientID, "client_secret": clientSecret]
        form["scope"] = scope
        return try await OAuthTokenEndpoint.request(
            tokenURL, form: form, timeout: timeout, previous: current, transport: transport, allowsInsecureHTTP: allowsInsecureHTTP)
    }
}
