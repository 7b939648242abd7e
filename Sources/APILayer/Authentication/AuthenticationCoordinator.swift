import Foundation
import Instrumentation
import Logging
import NetOps
import Tracing
import Validator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Puts the token into every request of one API and turns any number of authentication failures
/// into one token refresh.
///
/// An `APIScope` makes one with `configureAuthentication(…)` and gives it to every operation of
/// its methods (only for requests to the API's origins). Attached by hand as an operation's
/// `interceptor`, it places the token on that operation's requests. It is the
/// `OperationInterceptor` of the operations it guards:
/// - before a request goes, it inserts the current token and notes its *version* on the
///   operation; while a refresh runs, or when the token is known to be expired, the operation
///   is parked instead of sending a stale token;
/// - when a response says the token failed (401, or the service's body rule), the operation is
///   parked and one refresh starts (single flight). A failure of a request sent with an older
///   token version is replayed at once with the current token, without a new refresh;
/// - when the refresh succeeds the token is saved and every parked operation is replayed; when
///   it fails, every parked operation ends with that error and every waiter is released;
/// - more than `refreshLimit` refreshes within `refreshWindow` seconds fail with
///   `excessiveRefresh` instead of looping.
///
/// The authenticator is never called while a lock is held, and token values never reach a log.
public final class AuthenticationCoordinator: OperationInterceptor, @unchecked Sendable {
    /// How the coordinator recognises and places tokens.
    public struct Configuration: Sendable {
        /// Where requests carry the token.
        public var placement: TokenPlacement = .authorizationHeader
        /// A service rule: true when a response body (with any status) says the token failed,
        /// e.g. `{"error":{"error_code":5}}`. 401 always counts.
        public var bodySaysUnauthorized: (@Sendable (Data) -> Bool)?
        /// The same rule over the parsed body, e.g. `{ SampleServiceError(json: $0)?.code == 5 }`:
        /// preferred to `bodySaysUnauthorized`, because an APIManager call parses its body once
        /// and the rule, validation and mapping all read that value. A body that is not JSON
        /// does not say the token failed.
        public var jsonSaysUnauthorized: (@Sendable (JSONValue) -> Bool)?
        /// Refresh this many seconds before a known expiry.
        public var expiryLeeway: TimeInterval = 5
        /// The most refreshes allowed within `refreshWindow` seconds.
        public var refreshLimit = 5
        /// The window of the refresh loop guard, in seconds.
        public var refreshWindow: TimeInterval = 30

        /// The defaults: Bearer header, 401 only, 5 s leeway, at most 5 refreshes in 30 s.
        public init() {}
    }

    /// The key of `BaseOperation.userInfo` holding the token version a request carried.
    public static let versionKey = "apilayer.tokenVersion"
    /// The key of `BaseOperation.userInfo` holding a `TokenPlacement` that overrides the
    /// configuration's for that operation.
    public static let placementKey = "apilayer.tokenPlacement"
    /// The key of `BaseOperation.userInfo` that, set to `true`, sends the operation without a token.
    public static let withoutTokenKey = "apilayer.withoutToken"

    private struct State {
        var token: Token?
        var version = 0
        var refreshing = false
        var lastFailure: AuthenticationError?
        var lastFailureReason: String?
        var refreshTimes: [Date] = []
        var refreshCount = 0
        var waiters: [CheckedContinuation<Token, any Error>] = []
    }

    private let state: Locked<State>
    private let authenticator: any Authenticator
    private let store: any TokenStore
    /// How tokens are placed and failures recognised.
    public let configuration: Configuration
    private let logger: Logger
    private let telemetry: RefreshTelemetry

    /// A coordinator refreshing through `authenticator` and saving tokens in `store`, starting
    /// from the stored token when there is a readable one. Its refreshes are counted and traced
    /// through the global metrics and tracing systems, as API `unscoped`; an `APIScope`'s
    /// coordinator reports under the scope's name, factory and tracer.
    public convenience init(
        authenticator: any Authenticator, store: any TokenStore,
        configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "APILayer.Authentication")
    ) {
        self.init(
            authenticator: authenticator, store: store, configuration: configuration, logger: logger,
            telemetry: RefreshTelemetry(api: "unscoped"))
    }

    init(
        authenticator: any Authenticator, store: any TokenStore, configuration: Configuration, logger: Logger,
        telemetry: RefreshTelemetry
    ) {
        self.authenticator = authenticator
        self.store = store
        self.configuration = configuration
        self.logger = logger
        self.telemetry = telemetry
        var initial = State()
        do {
            initial.token = try store.load()
        } catch {
            logger.warning("stored token ignored: \(telemetry.redaction.text(String(describing: error)))")
        }
        state = Locked(initial)
    }

    // MARK: Token

    /// The current token.
    public var token: Token? { state.withLock { $0.token } }

    /// The version of the current token: it grows by one with every new token.
    public var tokenVersion: Int { state.withLock { $0.version } }

    /// Calls to the authenticator so far.
    public var refreshCount: Int { state.withLock { $0.refreshCount } }

    /// Replaces the token (for example after a login), saving it in the store.
    ///
    /// - Throws: the store's error; the token is in use either way.
    public func updateToken(_ token: Token) throws {
        state.withLock { state in
            state.token = token
            state.version += 1
            state.lastFailure = nil
        }
        try store.save(token)
    }

    /// Forgets the token, in memory and in the store.
    public func removeToken() throws {
        state.withLock { state in
            state.token = nil
            state.version += 1
        }
        try store.remove()
    }

    /// Reloads the token from the store; a corrupt or unreadable store counts as no token.
    ///
    /// - Returns: the restored token.
    @discardableResult
    public func restoreToken() -> Token? {
        let loaded: Token?
        do {
            loaded = try store.load()
        } catch {
            logger.warning("stored token ignored: \(telemetry.redaction.text(String(describing: error)))")
            loaded = nil
        }
        state.withLock { state in
            state.token = loaded
            state.version += 1
        }
        return loaded
    }

    /// Refreshes the token now, or joins the refresh already running.
    ///
    /// - Throws: `AuthenticationError` (or the authenticator's own error) when it fails.
    @discardableResult
    public func authenticationProcess() async throws -> Token {
        try await withCheckedThrowingContinuation { continuation in
            let start = state.withLock { state -> Bool in
                state.waiters.append(continuation)
                return beginRefreshLocked(&state)
            }
            if start { launchRefresh(parent: ServiceContext.current) }
        }
    }

    // MARK: OperationInterceptor

    /// Inserts the current token, or parks the operation while a refresh runs or the token is expired.
    public func adapt(_ request: URLRequest, for operation: BaseOperation) -> RequestDecision {
        let info = operation.userInfo
        if info[Self.withoutTokenKey] as? Bool == true { return .proceed(request) }
        return adapt(request, for: operation, placement: info[Self.placementKey] as? TokenPlacement ?? configuration.placement)
    }

    /// Inserts the current token where `placement` says, or parks the operation.
    func adapt(_ request: URLRequest, for operation: BaseOperation, placement: TokenPlacement) -> RequestDecision {
        enum Verdict {
            case send(String, Int)
            case needsToken(TokenWait)
        }
        let verdict = state.withLock { state -> Verdict in
            if !state.refreshing, let token = state.token, !token.isExpired(leeway: configuration.expiryLeeway) {
                return .send(token.accessToken, state.version)
            }
            return .needsToken(waitForTokenLocked(&state))
        }
        switch verdict {
        case let .send(token, version):
            if let name = placement.parameterName, !operation.redaction.isSecret(parameter: name) {
                operation.redaction = operation.redaction.adding(parameters: [name])
            }
            switch placement.placing(token, in: request) {
            case let .success(placed):
                operation.userInfo[Self.versionKey] = version
                return .proceed(placed)
            case let .failure(error):
                return .fail(error)
            }
        case let .needsToken(wait):
            return settle(wait, url: request.url, for: operation).map(RequestDecision.fail) ?? .postpone
        }
    }

    /// Parks the operation on a 401 or the service's body rule, refreshing once for all.
    public func judge(_ response: HTTPURLResponse, body: Data, for operation: BaseOperation) -> ResponseDecision {
        // A request sent without a token (an upload server, a public endpoint) has no token to refresh.
        if operation.userInfo[Self.withoutTokenKey] as? Bool == true { return .useDefault }
        return judgeCredential(response, body: body, for: operation)
    }

    /// Parks the operation when `response` says its token failed.
    func judgeCredential(_ response: HTTPURLResponse, body: Data, for operation: BaseOperation) -> ResponseDecision {
        let unauthorized = response.statusCode == 401 || bodySaysUnauthorized(body, for: operation)
        guard unauthorized else { return .useDefault }
        let used = operation.userInfo[Self.versionKey] as? Int
        enum Verdict {
            case replayNow
            case needsToken(TokenWait)
        }
        let verdict = state.withLock { state -> Verdict in
            if let used, used < state.version { return .replayNow }
            return .needsToken(waitForTokenLocked(&state))
        }
        switch verdict {
        case .replayNow:
            return .retry(after: 0)
        case let .needsToken(wait):
            return settle(wait, url: response.url, for: operation).map(ResponseDecision.fail) ?? .postpone
        }
    }

    /// Whether the service's body rules say the token failed. The JSON rule reads the body the
    /// operation parsed (an `APIOperation` keeps it for its pipeline), parsing it only when the
    /// operation keeps none.
    private func bodySaysUnauthorized(_ body: Data, for operation: BaseOperation) -> Bool {
        if let rule = configuration.bodySaysUnauthorized, rule(body) { return true }
        guard let rule = configuration.jsonSaysUnauthorized, !body.isEmpty else { return false }
        let parsed = (operation as? any ParsedBodyHolder)?.parsedBody(body) ?? Result { try JSONValue(parsing: body) }
        guard case let .success(json) = parsed else { return false }
        return rule(json)
    }

    /// What a request without a usable token does.
    private enum TokenWait {
        /// Wait for the refresh already running.
        case wait
        /// Wait for the refresh this request starts.
        case waitAndRefresh
        /// Give up: the loop guard refuses another refresh.
        case fail(AuthenticationError)
    }

    /// Joins the running refresh, starts one, or refuses (loop guard). Call with the lock held.
    private func waitForTokenLocked(_ state: inout State) -> TokenWait {
        if state.refreshing { return .wait }
        if let refusal = loopGuardLocked(&state) { return .fail(refusal) }
        return beginRefreshLocked(&state) ? .waitAndRefresh : .wait
    }

    /// Outside the lock: launches the refresh `wait` started; returns the error to end the
    /// operation with, or nil to park it.
    private func settle(_ wait: TokenWait, url: URL?, for operation: BaseOperation) -> NetOpsError? {
        switch wait {
        case .wait:
            return nil
        case .waitAndRefresh:
            launchRefresh(parent: (operation as? any TraceContextHolder)?.traceContext)
            return nil
        case let .fail(error):
            return NetOpsError(.authenticationFailed(reason: error.description), url: url)
        }
    }

    /// An operation parked after the refresh it waited for ended: replay or fail it now.
    public func didPostpone(_ operation: BaseOperation) {
        let (refreshing, failure) = state.withLock { ($0.refreshing, $0.lastFailureReason) }
        guard !refreshing, BaseOperation.take(operation) else { return }
        if let failure {
            operation.failPostponed(with: NetOpsError(.authenticationFailed(reason: failure), url: operation.request?.url))
        } else {
            operation.replay()
        }
    }

    // MARK: The refresh

    /// Whether `operation` is guarded by this coordinator (its own interceptor, or the default).
    private func guards(_ operation: BaseOperation) -> Bool {
        let interceptor = operation.effectiveInterceptor
        if let scoped = interceptor as? ScopedAuthentication { return scoped.coordinator === self }
        return (interceptor as? AuthenticationCoordinator) === self
    }

    /// Marks a refresh as running; true when the caller must launch it. Call with the lock held.
    private func beginRefreshLocked(_ state: inout State) -> Bool {
        guard !state.refreshing else { return false }
        state.refreshing = true
        state.refreshTimes.append(Date())
        state.refreshCount += 1
        return true
    }

    /// The loop guard's refusal, when too many refreshes happened lately. Call with the lock held.
    private func loopGuardLocked(_ state: inout State) -> AuthenticationError? {
        let now = Date()
        state.refreshTimes.removeAll { now.timeIntervalSince($0) > configuration.refreshWindow }
        guard state.refreshTimes.count >= configuration.refreshLimit else { return nil }
        let refusal = AuthenticationError.excessiveRefresh(count: state.refreshTimes.count, window: configuration.refreshWindow)
        state.lastFailure = refusal
        state.lastFailureReason = refusal.description
        return refusal
    }

    /// Starts the refresh; its span is a child of `parent`, the call that needed it.
    private func launchRefresh(parent: ServiceContext?) {
        Task { await refresh(parent: parent) }
    }

    private func refresh(parent: ServiceContext?) async {
        let current = state.withLock { $0.token }
        logger.debug("refreshing the token")
        let span = telemetry.startRefreshSpan(parent: parent)
        do {
            let authenticator = self.authenticator
            let fresh = try await ServiceContext.$current.withValue(span.context) {
                try await authenticator.refresh(current: current)
            }
            let waiters = state.withLock { state -> [CheckedContinuation<Token, any Error>] in
                state.token = fresh
                state.version += 1
                state.refreshing = false
                state.lastFailure = nil
                state.lastFailureReason = nil
                defer { state.waiters = [] }
                return state.waiters
            }
            do { try store.save(fresh) } catch {
                logger.error("the fresh token could not be saved: \(telemetry.redaction.text(String(describing: error)))")
            }
            telemetry.refreshEnded(span, failure: nil)
            let parked = BaseOperation.postponedOperations.filter { guards($0) && BaseOperation.take($0) }
            logger.info("token refreshed; replaying \(parked.count) parked operations")
            for operation in parked { operation.replay() }
            for waiter in waiters { waiter.resume(returning: fresh) }
        } catch {
            let reason = (error as? AuthenticationError)?.description ?? String(describing: error)
            let waiters = state.withLock { state -> [CheckedContinuation<Token, any Error>] in
                state.refreshing = false
                state.lastFailure = error as? AuthenticationError
                state.lastFailureReason = reason
                defer { state.waiters = [] }
                return state.waiters
            }
            telemetry.refreshEnded(span, failure: reason)
            let parked = BaseOperation.postponedOperations.filter { guards($0) && BaseOperation.take($0) }
            logger.error("token refresh failed (\(telemetry.redaction.text(reason))); failing \(parked.count) parked operations")
            for operation in parked {
                operation.failPostponed(with: NetOpsError(.authenticationFailed(reason: reason), url: operation.request?.url))
            }
            for waiter in waiters { waiter.resume(throwing: error) }
        }
    }
}
