import Foundation
import NIOConcurrencyHelpers

/// Issues and checks OAuth 2.0 bearer tokens for one realm of DemoServer.
///
/// Each realm (`/realm/{name}/…`) has its own authority, so tests running at the same time do
/// not disturb each other. Tokens expire after a number of uses or seconds; the token endpoint
/// can be told to fail, answer garbage, hang or be slow.
public final class TokenAuthority: Sendable {
    /// How the token endpoint behaves.
    public enum Mode: String, Sendable, Codable {
        /// Issues tokens.
        case normal
        /// Answers 500.
        case fail
        /// Answers 200 with a body that is not a token.
        case garbage
        /// Never answers (until the client gives up).
        case hang
    }

    /// The authority's settings and counters, as the control route reports them.
    public struct Snapshot: Sendable, Codable, Equatable {
        /// Token endpoint behaviour.
        public var mode: Mode = .normal
        /// Seconds the token endpoint waits before answering.
        public var delay: Double = 0
        /// Seconds a token is valid (nil: forever).
        public var lifetime: Double?
        /// Requests a token is valid for (nil: any number).
        public var maxUses: Int?
        /// Calls to the token endpoint so far.
        public var tokenRequests = 0
        /// Protected requests answered 401 (or with the body-level auth error).
        public var rejected = 0
        /// Protected requests accepted.
        public var accepted = 0
    }

    private struct Issued {
        var expires: Date?
        var usesLeft: Int?
    }

    private struct State {
        var snapshot = Snapshot()
        var tokens: [String: Issued] = [:]
        var refreshTokens: Set<String> = []
        var counter = 0
    }

    private let state = NIOLockedValueBox(State())

    /// The current settings and counters.
    public var snapshot: Snapshot { state.withLockedValue { $0.snapshot } }

    /// Changes the settings (counters are kept); `expireAll` invalidates every token issued.
    public func configure(mode: Mode?, delay: Double?, lifetime: Double??, maxUses: Int??, expireAll: Bool) {
        state.withLockedValue { state in
            if let mode { state.snapshot.mode = mode }
            if let delay { state.snapshot.delay = delay }
            if let lifetime { state.snapshot.lifetime = lifetime }
            if let maxUses { state.snapshot.maxUses = maxUses }
            if expireAll { state.tokens.removeAll() }
        }
    }

    /// The answer of the token endpoint for a grant: the token JSON, or nil with a status.
    func grant(type: String, refreshToken: String?, clientID: String?, clientSecret: String?) -> (status: Int, body: String) {
        state.withLockedValue { state in
            state.snapshot.tokenRequests += 1
            switch type {
            case "refresh_token":
                guard let refreshToken, state.refreshTokens.contains(refreshToken) || refreshToken.hasPrefix("seed-") else {
                    return (400, #"{"error":"invalid_grant"}"#)
                }
            case "client_credentials":
                guard clientID == "demo-client", clientSecret == "demo-secret" else {
                    return (401, #"{"error":"invalid_client"}"#)
                }
            default:
                return (400, #"{"error":"unsupported_grant_type"}"#)
            }
            state.counter += 1
            let access = "at-\(state.counter)-\(UUID().uuidString.prefix(8))"
            let refresh = "rt-\(state.counter)-\(UUID().uuidString.prefix(8))"
            state.tokens[access] = Issued(
                expires: state.snapshot.lifetime.map { Date(timeIntervalSinceNow: $0) },
                usesLeft: state.snapshot.maxUses)
            state.refreshTokens.insert(refresh)
            let expiresIn = state.snapshot.lifetime.map { #","expires_in":\#(Int($0.rounded(.up)))"# } ?? ""
            return (200, #"{"access_token":"\#(access)","token_type":"Bearer","refresh_token":"\#(refresh)"\#(expiresIn),"user_id":"1"}"#)
        }
    }

    /// Ends `token` (a logout): later requests with it are refused.
    func revoke(_ token: String) {
        state.withLockedValue { _ = $0.tokens.removeValue(forKey: token) }
    }

    /// Whether `token` may make one more request (using it up by one).
    func admit(_ token: String?) -> Bool {
        state.withLockedValue { state in
            guard let token, var issued = state.tokens[token] else {
                state.snapshot.rejected += 1
                return false
            }
            if let expires = issued.expires, expires <= Date() {
                state.snapshot.rejected += 1
                return false
            }
            if let left = issued.usesLeft {
                guard left > 0 else {
                    state.snapshot.rejected += 1
                    return false
                }
                issued.usesLeft = left - 1
                state.tokens[token] = issued
            }
            state.snapshot.accepted += 1
            return true
        }
    }
}
