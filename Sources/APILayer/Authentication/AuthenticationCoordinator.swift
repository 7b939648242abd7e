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
/// its methods (only for requests to the API's origins). Attached by hand as a stage
/// (`operation.use(coordinator)`), it places the token on that operation's requests. It is a
/// stage of the middleware chain of the operations it guards:
/// - before a request goes, it inserts the current token and notes its *version* among the
///   call's values (`TokenVersion`); while a refresh runs, or when the token is known to be
///   expired, the operation is parked instead of sending a stale token;
/// - when a response says the token failed (401, or the service's body rule), the operation is
///   parked and one refresh starts (single flight). A failure of a request sent with an older
///   token version is replayed at once with the current token, without a new refresh;
/// - when the refresh succeeds the token is saved and every parked operation is replayed; when
///   it fails, or does not return within `refreshTimeout`, every parked operation ends with that
///   error and every waiter is released (a late result of a timed-out refresh is ignored);
/// - a refresh that returns after the token changed under it (`updateToken`, `removeToken`,
///   `restoreToken`) is dropped: neither kept nor saved. The operations parked on it are replayed
///   with the current token, or fail with `AuthenticationError.tokenRemovedDuringRefresh` when
///   there is none, so a logout during a refresh stays a logout;
/// - it parks operations in a lot of its own (`parkingLot`) and replays and fails only those:
///   another API's parked operations, and one a caller parked with `BaseOperation.postpone(_:)`
///   (in its session's lot), stay as they are;
/// - more than `refreshLimit` refreshes within `refreshWindow` seconds fail with
///   `excessiveRefresh` instead of looping;
/// - when its store is a `SharedTokenStore`, the store runs each refresh, so that one process
///   of several refreshes for all of them; a refresh that fails with
///   `AuthenticationError.tokenRemoved` (another process logged out) drops the token here too.
///
/// The authenticator is never called while a lock is held, and token values never reach a log.
public final class AuthenticationCoordinator: NetworkMiddleware, @unchecked Sendable {
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
        /// The most seconds a refresh may take (30 s by default): an authenticator that has not
        /// returned by then fails with `AuthenticationError.refreshTimedOut`, every operation
        /// parked on it ends with that error and every waiter is released. Its late result is
        /// ignored. Parked operations also end sooner when their own `totalTimeout` passes.
        public var refreshTimeout: TimeInterval = 30

        /// The defaults: Bearer header, 401 only, 5 s leeway, at most 5 refreshes in 30 s, a
        /// refresh given 30 s.
        public init() {}
    }

    /// The version of the token the call's last request carried (`tokenVersion` when it was
    /// placed): a 401 to an older version is replayed with the current token, without a refresh.
    public enum TokenVersion: CallValueKey {
        /// The version.
        public typealias Value = Int
    }

    /// Where this call's requests carry the token, instead of the configuration's placement
    /// (for a coordinator attached by hand; an API scope's methods say it themselves).
    public enum PlacementOverride: CallValueKey {
        /// The placement.
        public typealias Value = TokenPlacement
    }

    /// Set to `true` before `start()`: the call goes without a token (an upload server, a
    /// public endpoint), and its 401s start no refresh.
    ///
    /// ```swift
    /// upload.values[AuthenticationCoordinator.WithoutToken.self] = true
    /// ```
    public enum WithoutToken: CallValueKey {
        /// True to send no token.
        public typealias Value = Bool
    }

    /// Where the operations waiting for a token wait: this coordinator's own, so it replays
    /// and fails only what it parked.
    public let parkingLot = ParkingLot()

    private struct State {
        var token: Token?
        var version = 0
        var refreshing = false
        var lastFailure: AuthenticationError?
        var lastFailureReason: String?
        var refreshTimes: [Date] = []
        var refreshCount = 0
        var waiters: [CheckedContinuation<Token, any Error>] = []
        /// The number of the refresh running (or of the last one): a result or a timeout of
        /// another number is late and ignored.
        var refreshGeneration: UInt64 = 0
        /// `version` when the running refresh started: when the token changed since, the
        /// refresh's result is dropped.
        var refreshBaseVersion = 0
        /// The running refresh's timer, cancelled when it ends.
        var refreshTimer: Task<Void, Never>?
        /// The running refresh's task and span, for `stop()`.
        var refreshTask: Task<Void, Never>?
        var refreshSpan: (any Span)?
        /// Set by `stop()`: no refresh starts after it.
        var stopped = false
    }

    /// A refresh to launch, as `beginRefreshLocked` decided it.
    private struct RefreshStart {
        let generation: UInt64
        let current: Token?
    }

    private let state: Locked<State>
    /// Serializes writes to the store, each made only if its token version is still the
    /// current one, so the store ends with the token in memory whatever the order of writers.
    private let storeQueue = DispatchQueue(label: "APILayer.AuthenticationCoordinator.store")
    private let authenticator: any Authenticator
    private let store: any TokenStore
    /// How tokens are placed and failures recognised.
    public let configuration: Configuration
    private let logger: Logger
    private let telemetry: RefreshTelemetry
    /// Called after each `removeToken()`, outside the lock (an API scope empties its HTTP cache).
    private let onTokenRemoved: (@Sendable () -> Void)?
    /// The transport of the API the coordinator refreshes for (its scope's session, TLS, proxy),
    /// read at each refresh, for an OAuth authenticator that has none of its own.
    private let tokenRequestTransport: (@Sendable () -> TokenRequestTransport?)?

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
        telemetry: RefreshTelemetry, onTokenRemoved: (@Sendable () -> Void)? = nil,
        tokenRequestTransport: (@Sendable () -> TokenRequestTransport?)? = nil
    ) {
        self.onTokenRemoved = onTokenRemoved
        self.tokenRequestTransport = tokenRequestTransport
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

    /// Replaces the token (for example after a login), saving it in the store. A refresh
    /// running meanwhile is dropped when it returns: this token stays.
    ///
    /// - Throws: the store's error; the token is in use either way.
    public func updateToken(_ token: Token) throws {
        let version = state.withLock { state -> Int in
            state.token = token
            state.version += 1
            state.lastFailure = nil
            return state.version
        }
        try persist(version: version) { try $0.save(token) }
    }

    /// Writes the current token to the store, as it is: its version does not change, so a
    /// refresh running meanwhile keeps its result, and a token that changes before the write
    /// is written by its own change, never overwritten by this one.
    ///
    /// - Throws: `TokenStoreError`.
    public func saveToken() throws {
        let (token, version) = state.withLock { ($0.token, $0.version) }
        guard let token else { return }
        try persist(version: version) { try $0.save(token) }
    }

    /// Forgets the token, in memory and in the store. A refresh running meanwhile is dropped
    /// when it returns (its token is neither kept nor saved), and the operations parked on it
    /// fail with `AuthenticationError.tokenRemovedDuringRefresh`. The coordinator of an API
    /// scope also empties the scope's `HTTPCache`: the answers the account was given do not
    /// outlive its logout, in memory or in the cache's folder.
    public func removeToken() throws {
        let version = state.withLock { state -> Int in
            state.token = nil
            state.version += 1
            return state.version
        }
        onTokenRemoved?()
        try persist(version: version) { try $0.remove() }
    }

    /// Writes to the store on its queue, unless the token changed again since `version`: the
    /// later change writes instead.
    private func persist(version: Int, _ write: (any TokenStore) throws -> Void) throws {
        try storeQueue.sync {
            guard state.withLock({ $0.version }) == version else { return }
            try write(store)
        }
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
            let start = state.withLock { state -> Result<RefreshStart?, AuthenticationError> in
                if state.stopped, !state.refreshing { return .failure(.stopped) }
                state.waiters.append(continuation)
                return .success(beginRefreshLocked(&state))
            }
            switch start {
            case let .success(start?): launchRefresh(start, parent: ServiceContext.current)
            case .success(nil): break
            case let .failure(error): continuation.resume(throwing: error)
            }
        }
    }

    // MARK: NetworkMiddleware

    /// Places the current token (where the call's `PlacementOverride` or the configuration
    /// says), or parks the operation in this coordinator's lot while a refresh runs or the
    /// token is expired. A call marked `WithoutToken` goes as it is.
    public func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
        let values = context.values
        if values[WithoutToken.self] == true { return .proceed }
        return placeToken(in: &request, for: context.operation, placement: values[PlacementOverride.self] ?? configuration.placement)
    }

    /// Parks the operation on a 401 or the service's body rule, refreshing once for all.
    public func judge(_ outcome: AttemptOutcome, verdict: inout Verdict, context: MiddlewareContext) throws {
        guard let status = outcome.statusCode, outcome.error == nil || outcome.error?.httpStatus != nil else { return }
        // A request sent without a token (an upload server, a public endpoint) has no token to refresh.
        if context.values[WithoutToken.self] == true { return }
        if let decided = judgeCredential(status: status, url: outcome.url, body: outcome.body, for: context.operation) { verdict = decided }
    }

    /// Replays or fails at once an operation that parked in this lot after its refresh ended.
    public func operationDidPark(_ operation: BaseOperation, in lot: ParkingLot) {
        guard lot === parkingLot else { return }
        didPostpone(operation)
    }

    /// Inserts the current token where `placement` says and notes its version among the call's
    /// values, or parks the operation in this coordinator's lot.
    func placeToken(in request: inout URLRequest, for operation: BaseOperation, placement: TokenPlacement) -> PrepareDecision {
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
            switch placement.placing(token, in: request) {
            case let .success(placed):
                operation.values[TokenVersion.self] = version
                request = placed
                return .proceed
            case let .failure(error):
                return .fail(error)
            }
        case let .needsToken(wait):
            return settle(wait, url: request.url, for: operation).map { .fail($0) } ?? .park(in: parkingLot)
        }
    }

    /// Parks the operation when a response of `status` from `url` says its token failed: the
    /// verdict to give, nil to keep the one there is.
    func judgeCredential(status: Int, url: URL?, body: Data, for operation: BaseOperation) -> Verdict? {
        let unauthorized = status == 401 || bodySaysUnauthorized(body, for: operation)
        guard unauthorized else { return nil }
        let used = operation.values[TokenVersion.self]
        enum Decision {
            case replayNow
            case needsToken(TokenWait)
        }
        let decision = state.withLock { state -> Decision in
            if let used, used < state.version { return .replayNow }
            return .needsToken(waitForTokenLocked(&state))
        }
        switch decision {
        case .replayNow:
            return .retry(after: 0)
        case let .needsToken(wait):
            return settle(wait, url: url, for: operation).map { .fail($0) } ?? .park(in: parkingLot)
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
        case waitAndRefresh(RefreshStart)
        /// Give up: the loop guard refuses another refresh.
        case fail(AuthenticationError)
    }

    /// Joins the running refresh, starts one, or refuses (loop guard). Call with the lock held.
    private func waitForTokenLocked(_ state: inout State) -> TokenWait {
        if state.refreshing { return .wait }
        if state.stopped { return .fail(.stopped) }
        if let refusal = loopGuardLocked(&state) { return .fail(refusal) }
        return beginRefreshLocked(&state).map(TokenWait.waitAndRefresh) ?? .wait
    }

    /// Outside the lock: launches the refresh `wait` started; returns the error to end the
    /// operation with, or nil to park it.
    private func settle(_ wait: TokenWait, url: URL?, for operation: BaseOperation) -> NetOpsError? {
        switch wait {
        case .wait:
            return nil
        case let .waitAndRefresh(start):
            launchRefresh(start, parent: (operation as? any TraceContextHolder)?.traceContext)
            return nil
        case let .fail(error):
            return NetOpsError(.authenticationFailed(reason: error.description), url: url)
        }
    }

    /// An operation parked after the refresh it waited for ended: replay or fail it now. An
    /// operation parked elsewhere (a caller's `BaseOperation.postpone(_:)`) is left parked.
    public func didPostpone(_ operation: BaseOperation) {
        guard operation.parkingLot === parkingLot else { return }
        let (refreshing, failure) = state.withLock { ($0.refreshing, $0.lastFailureReason) }
        guard !refreshing, parkingLot.take(operation) else { return }
        if let failure {
            operation.failPostponed(with: NetOpsError(.authenticationFailed(reason: failure), url: operation.request?.url))
        } else {
            operation.replay()
        }
    }

    // MARK: The refresh

    /// Marks a refresh as running, numbered and based on the current token version; returns
    /// what the caller must launch, nil when one runs already. Call with the lock held.
    private func beginRefreshLocked(_ state: inout State) -> RefreshStart? {
        guard !state.refreshing else { return nil }
        state.refreshing = true
        state.refreshTimes.append(Date())
        state.refreshCount += 1
        state.refreshGeneration &+= 1
        state.refreshBaseVersion = state.version
        return RefreshStart(generation: state.refreshGeneration, current: state.token)
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

    /// Starts the refresh and its timer; its span is a child of `parent`, the call that needed it.
    private func launchRefresh(_ start: RefreshStart, parent: ServiceContext?) {
        logger.debug("refreshing the token")
        let span = telemetry.startRefreshSpan(parent: parent)
        let timeout = min(max(0.001, configuration.refreshTimeout), 1e9)
        let timer = Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(timeout * 1e9))
            guard !Task.isCancelled else { return }
            self?.finishRefresh(start.generation, outcome: .failure(AuthenticationError.refreshTimedOut(seconds: timeout)), span: span)
        }
        let task = Task { await refresh(start, span: span) }
        let stillRunning = state.withLock { state -> Bool in
            guard state.refreshing, state.refreshGeneration == start.generation else { return false }
            state.refreshTimer = timer
            state.refreshTask = task
            state.refreshSpan = span
            return true
        }
        if !stillRunning { timer.cancel() }
    }

    /// Stops the coordinator for good, as a service does when it shuts down: a refresh running
    /// is abandoned (its task cancelled) and fails with `AuthenticationError.stopped`, with every
    /// operation parked on it and every waiter; later 401s fail with that error instead of
    /// starting a refresh. The token stays readable and stored. Calling it again does nothing.
    public func stop() {
        let running = state.withLock { state -> (UInt64, Task<Void, Never>?, (any Span)?)? in
            guard !state.stopped else { return nil }
            state.stopped = true
            guard state.refreshing else { return nil }
            return (state.refreshGeneration, state.refreshTask, state.refreshSpan)
        }
        guard let (generation, task, span) = running else { return }
        task?.cancel()
        if let span { finishRefresh(generation, outcome: .failure(AuthenticationError.stopped), span: span) }
    }

    /// Waits until the token writes of a shared store (a `SharedTokenStore`) have reached it:
    /// what a service does before it exits. Returns at once for any other store.
    public func flushStore() async {
        await (store as? any SharedTokenStore)?.flush()
    }

    /// Whether `stop()` was called.
    public var isStopped: Bool { state.withLock { $0.stopped } }

    private func refresh(_ start: RefreshStart, span: any Span) async {
        let outcome: Result<Token, any Error>
        do {
            var authenticator = self.authenticator
            if let endpoint = authenticator as? any TokenEndpointAuthenticator, let transport = tokenRequestTransport?() {
                // The token request goes as the API's calls go: its session, TLS and proxy.
                authenticator = endpoint.using(transport)
            }
            let shared = store as? any SharedTokenStore
            let fresh = try await ServiceContext.$current.withValue(span.context) {
                // A store shared by several processes refreshes for all of them.
                if let shared { return try await shared.refresh(current: start.current, using: authenticator) }
                return try await authenticator.refresh(current: start.current)
            }
            outcome = .success(fresh)
        } catch {
            outcome = .failure(error)
        }
        finishRefresh(start.generation, outcome: outcome, span: span)
    }

    /// What the end of a refresh does to the parked operations and the waiters.
    private enum RefreshEnd {
        /// The fresh token is kept (its version given): save it, replay, hand it to the waiters.
        case stored(Token, version: Int)
        /// The token changed during the refresh and there is one: replay with it, hand it over.
        case superseded(Token)
        /// Fail the parked operations and the waiters with this error.
        case failed(any Error, reason: String)
    }

    /// Ends the refresh numbered `generation` with `outcome`, once: the first of its result and
    /// its timeout wins, and whatever comes later is ignored. A result that comes after the
    /// token changed under the refresh is dropped. The winner ends the refresh's span.
    private func finishRefresh(_ generation: UInt64, outcome: Result<Token, any Error>, span: any Span) {
        let ended = state.withLock { state -> (RefreshEnd, [CheckedContinuation<Token, any Error>], Task<Void, Never>?)? in
            guard state.refreshing, state.refreshGeneration == generation else { return nil }
            state.refreshing = false
            let waiters = state.waiters
            state.waiters = []
            let timer = state.refreshTimer
            state.refreshTimer = nil
            state.refreshTask = nil
            state.refreshSpan = nil
            let end: RefreshEnd
            if state.version != state.refreshBaseVersion {
                // The token changed under the refresh (a logout, a login, a restore): whatever
                // the refresh brought, the current state decides.
                if let token = state.token {
                    end = .superseded(token)
                } else {
                    let removed = AuthenticationError.tokenRemovedDuringRefresh
                    end = .failed(removed, reason: removed.description)
                }
            } else {
                switch outcome {
                case let .success(fresh):
                    state.token = fresh
                    state.version += 1
                    end = .stored(fresh, version: state.version)
                case let .failure(error):
                    if error as? AuthenticationError == .tokenRemoved {
                        // Another process sharing the store logged out: this one forgets the
                        // token too, instead of presenting it again.
                        state.token = nil
                        state.version += 1
                    }
                    end = .failed(error, reason: (error as? AuthenticationError)?.description ?? String(describing: error))
                }
            }
            switch end {
            case .stored, .superseded:
                state.lastFailure = nil
                state.lastFailureReason = nil
            case let .failed(error, reason):
                state.lastFailure = error as? AuthenticationError
                state.lastFailureReason = reason
            }
            return (end, waiters, timer)
        }
        guard let (end, waiters, timer) = ended else {
            logger.debug("a token refresh returned after it had ended (timed out or superseded); its result is ignored")
            return
        }
        timer?.cancel()
        switch end {
        case let .stored(fresh, version):
            do { try persist(version: version) { try $0.save(fresh) } } catch {
                logger.error("the fresh token could not be saved: \(telemetry.redaction.text(String(describing: error)))")
            }
            telemetry.refreshEnded(span, failure: nil)
            replayParked(handing: fresh, to: waiters, note: "token refreshed")
        case let .superseded(current):
            telemetry.refreshEnded(span, failure: "dropped: the token changed during the refresh")
            replayParked(handing: current, to: waiters, note: "token changed during the refresh; its result dropped")
        case let .failed(error, reason):
            telemetry.refreshEnded(span, failure: reason)
            let parked = parkingLot.takeAll()
            logger.error("token refresh failed (\(telemetry.redaction.text(reason))); failing \(parked.count) parked operations")
            for operation in parked {
                operation.failPostponed(with: NetOpsError(.authenticationFailed(reason: reason), url: operation.request?.url))
            }
            for waiter in waiters { waiter.resume(throwing: error) }
        }
    }

    /// Replays the operations this coordinator parked and hands `token` to the waiters.
    private func replayParked(handing token: Token, to waiters: [CheckedContinuation<Token, any Error>], note: String) {
        let parked = parkingLot.takeAll()
        logger.info("\(note); replaying \(parked.count) parked operations")
        for operation in parked { operation.replay() }
        for waiter in waiters { waiter.resume(returning: token) }
    }
}

/// The older interceptor shape of the coordinator, kept so that `operation.interceptor =
/// coordinator` still builds: it runs as the stage it is.
@available(*, deprecated, message: "add the coordinator as a stage: operation.use(coordinator)")
extension AuthenticationCoordinator: OperationInterceptor {
    /// Inserts the current token, or postpones the operation while a refresh runs or the token
    /// is expired (the stage's `prepare` in the older vocabulary).
    public func adapt(_ request: URLRequest, for operation: BaseOperation) -> RequestDecision {
        if operation.values[WithoutToken.self] == true { return .proceed(request) }
        var placed = request
        switch placeToken(in: &placed, for: operation, placement: operation.values[PlacementOverride.self] ?? configuration.placement) {
        case .proceed: return .proceed(placed)
        case .park: return .postpone
        case let .fail(error): return .fail(operationError(error, url: request.url))
        }
    }

    /// Postpones the operation on a 401 or the service's body rule (the stage's `judge` in the
    /// older vocabulary).
    public func judge(_ response: HTTPURLResponse, body: Data, for operation: BaseOperation) -> ResponseDecision {
        if operation.values[WithoutToken.self] == true { return .useDefault }
        switch judgeCredential(status: response.statusCode, url: response.url, body: body, for: operation) {
        case nil, .accept?: return .useDefault
        case .park?: return .postpone
        case let .retry(after)?: return .retry(after: after)
        case let .fail(error)?: return .fail(operationError(error, url: response.url))
        }
    }

    private func operationError(_ error: any Error, url: URL?) -> NetOpsError {
        error as? NetOpsError ?? NetOpsError(rejecting: error, url: url)
    }
}
