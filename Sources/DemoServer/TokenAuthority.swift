import Foundation
import NIOConcurrencyHelpers

/// Issues and checks OAuth 2.0 bearer tokens for one realm of DemoServer.
///
/// Each realm (`/realm/{name}/…`) has its own authority, so tests running at the same time do
/// not disturb each other. Tokens expire after a number of uses or seconds; the token endpoint
/// can be told to fail, answer garbage, hang or be slow, to rotate refresh tokens (each works
/// once; presenting a spent one revokes every token issued so far, as rotation servers do on
/// reuse), or to stall a number of token requests and answer them 503 unprocessed.
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
        /// Whether a refresh token (a `seed-…` one too) works once: using it spends it, and a
        /// spent one presented again answers `invalid_grant` and revokes every token issued.
        public var rotation = false
        /// Token requests still to stall: each is held `stallSeconds`, then answered 503
        /// `temporarily_unavailable` without its grant being read or spent.
        public var stallRefreshes = 0
        /// Seconds a stalled token request is held before its 503.
        public var stallSeconds: Double = 30
        /// Token requests that were stalled (not counted in `tokenRequests`).
        public var stalledRefreshes = 0
        /// Successful `refresh_token` grants.
        public var refreshes = 0
        /// Presentations of a spent refresh token (with `rotation` on).
        public var reusedRefreshTokens = 0
        /// Whether a spent refresh token's reuse has revoked the tokens issued before it.
        public var revoked = false
    }

    private struct Issued {
        var expires: Date?
        var usesLeft: Int?
    }

    private struct State {
        var snapshot = Snapshot()
        var tokens: [String: Issued] = [:]
        var refreshTokens: Set<String> = []
        /// Refresh tokens spent under rotation, with the generation they were spent in: a reuse
        /// revokes only the generation it belongs to, so a later login survives a stale replay.
        var spentRefreshTokens: [String: Int] = [:]
        /// Bumped by each revocation: tokens of earlier generations are gone.
        var generation = 0
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

    /// Changes the refresh settings (counters are kept): rotation of refresh tokens, and how many
    /// of the next token requests stall, for how long.
    public func configureRefresh(rotation: Bool?, stallRefreshes: Int?, stallSeconds: Double?) {
        state.withLockedValue { state in
            if let rotation { state.snapshot.rotation = rotation }
            if let stallRefreshes { state.snapshot.stallRefreshes = max(0, stallRefreshes) }
            if let stallSeconds { state.snapshot.stallSeconds = max(0, stallSeconds) }
        }
    }

    /// For a token request that has arrived: the seconds to hold it before its 503 when it is one
    /// of the stalled ones (counting it down), else nil.
    func takeStall() -> Double? {
        state.withLockedValue { state in
            guard state.snapshot.stallRefreshes > 0 else { return nil }
            state.snapshot.stallRefreshes -= 1
            state.snapshot.stalledRefreshes += 1
            return state.snapshot.stallSeconds
        }
    }

    /// The answer of the token endpoint for a grant: the token JSON, or nil with a status.
    func grant(type: String, refreshToken: String?, clientID: String?, clientSecret: String?) -> (status: Int, body: String) {
        state.withLockedValue { state in
            state.snapshot.tokenRequests += 1
            switch type {
            case "refresh_token":
                guard let refreshToken else { return (400, #"{"error":"invalid_grant"}"#) }
                if let spentIn = state.spentRefreshTokens[refreshToken] {
                    // A replay: the token (or its holder) leaked. Revoke the grant it belongs to.
                    state.snapshot.reusedRefreshTokens += 1
                    if spentIn == state.generation {
                        state.generation += 1
                        state.tokens.removeAll()
                        state.refreshTokens.removeAll()
                        state.snapshot.revoked = true
                    }
                    return (400, #"{"error":"invalid_grant"}"#)
                }
                guard state.refreshTokens.contains(refreshToken) || refreshToken.hasPrefix("seed-") else {
                    return (400, #"{"error":"invalid_grant"}"#)
                }
                if state.snapshot.rotation {
                    state.refreshTokens.remove(refreshToken)
                    state.spentRefreshTokens[refreshToken] = state.generation
                }
                state.snapshot.refreshes += 1
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
