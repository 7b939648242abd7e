import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A stage that keeps an API's calls within its rate limits: the server's, read from its
/// answers, and optionally a budget of its own. Calls over a limit are parked, not failed, and
/// replayed in the order they parked when the limit allows; the time parked counts against each
/// operation's `totalTimeout`.
///
/// - **The server's limits** (`honoursServerLimits`, on by default): a 429, or a 503 of a
///   replayable request, that says when to come back (`Retry-After`) parks the call and every
///   later call of the limiter until then. An answer whose budget headers say nothing is left
///   (`X-RateLimit-Remaining: 0` with `X-RateLimit-Reset`, as GitHub sends; `RateLimit-Remaining`
///   and `RateLimit-Reset`, or `RateLimit: …remaining=0, reset=N`, of the IETF draft) parks the
///   later calls until the reset. A wait past `maximumWait` is cut to it; a date in the past, or a
///   value that does not parse, sets no wait.
/// - **A budget of its own** (`requestsPerInterval`, off by default): a token bucket of
///   `burst` tokens refilled at `requestsPerInterval` per `interval`; a call that finds it empty
///   parks until a token is there. Calls never overtake the ones parked before them.
/// - **A concurrency limit** (`maximumConcurrentRequests`, off by default): at most that many
///   requests of the limiter in flight at once; a call that finds them taken parks, and each
///   request that ends (answered, failed, cancelled, suspended, parked elsewhere) hands its slot
///   to the first call parked.
/// - **`Idempotency-Key`** (`sendsIdempotencyKeys`, off by default): each POST gets a key, the
///   same on every retry and replay of that operation (Stripe's convention).
public final class RateLimiter: NetworkMiddleware, Sendable {
    /// The limits a `RateLimiter` keeps.
    public struct Configuration: Sendable, Equatable {
        /// Calls allowed per `interval` (nil, the default: no budget of the limiter's own).
        public var requestsPerInterval: Int?
        /// The interval `requestsPerInterval` counts over, in seconds (default 1).
        public var interval: TimeInterval
        /// Calls allowed at once after a quiet time (default: `requestsPerInterval`).
        public var burst: Int?
        /// Whether `Retry-After` on a 429 or 503 and the budget headers park calls (default true).
        public var honoursServerLimits: Bool
        /// The longest wait a server's answer imposes, in seconds (default 600).
        public var maximumWait: TimeInterval
        /// Whether each POST carries an `Idempotency-Key`, kept across its retries (default false).
        public var sendsIdempotencyKeys: Bool
        /// Requests allowed in flight at once (nil, the default: no limit).
        public var maximumConcurrentRequests: Int?
        /// A budget shared with other processes (nil, the default: the limiter's own): with one,
        /// `requestsPerInterval`, `interval` and `burst` describe the budget of every process
        /// together, and the limiter draws its tokens from it.
        public var sharedBudget: (any SharedRateBudget)?

        /// A configuration; by default only the server's limits are honoured.
        public init(
            requestsPerInterval: Int? = nil, interval: TimeInterval = 1, burst: Int? = nil, honoursServerLimits: Bool = true,
            maximumWait: TimeInterval = 600, sendsIdempotencyKeys: Bool = false, maximumConcurrentRequests: Int? = nil,
            sharedBudget: (any SharedRateBudget)? = nil
        ) {
            self.sharedBudget = sharedBudget
            self.maximumConcurrentRequests = maximumConcurrentRequests.map { max(1, $0) }
            self.requestsPerInterval = requestsPerInterval.map { max(1, $0) }
            self.interval = max(0.001, interval)
            self.burst = burst.map { max(1, $0) }
            self.honoursServerLimits = honoursServerLimits
            self.maximumWait = max(0, maximumWait)
            self.sendsIdempotencyKeys = sendsIdempotencyKeys
        }

        /// Equal settings, and the same shared budget (the same object) or none.
        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.requestsPerInterval == rhs.requestsPerInterval && lhs.interval == rhs.interval && lhs.burst == rhs.burst
                && lhs.honoursServerLimits == rhs.honoursServerLimits && lhs.maximumWait == rhs.maximumWait
                && lhs.sendsIdempotencyKeys == rhs.sendsIdempotencyKeys && lhs.maximumConcurrentRequests == rhs.maximumConcurrentRequests
                && lhs.sharedBudget.map(ObjectIdentifier.init) == rhs.sharedBudget.map(ObjectIdentifier.init)
        }
    }

    /// Why calls wait: what `onWait` hears.
    public struct Wait: Sendable, Equatable {
        /// What imposed it.
        public enum Reason: String, Sendable {
            /// A 429 or 503 with `Retry-After`.
            case retryAfter
            /// Budget headers that say nothing is left.
            case budgetExhausted
        }
        /// What imposed the wait.
        public let reason: Reason
        /// Seconds from now until calls go again.
        public let seconds: Double
    }

    /// The key of `BaseOperation.userInfo` holding an operation's `Idempotency-Key`.
    public static let idempotencyKeyInfo = "netops.idempotencyKey"

    private struct State {
        /// No call goes before this time (a server's wait).
        var blockedUntil: DispatchTime?
        var tokens: Double
        var refilled: DispatchTime
        /// When the parked calls are replayed next, if a replay is scheduled.
        var replayAt: DispatchTime?
        /// The operations holding a slot of the concurrency limit.
        var holders: Set<ObjectIdentifier> = []
        /// Slots freed and kept for the first call parked for one, until it is taken from the lot.
        var reserved = 0
        /// The calls parked for a slot (not for the budget or a server's wait).
        var slotWaiters: Set<ObjectIdentifier> = []
        /// Whether a claim on the shared budget is under way.
        var claiming = false
    }

    /// The limiter's settings.
    public let configuration: Configuration
    /// Where the calls over a limit wait, first parked first.
    public let parkingLot = ParkingLot()
    private let state: Locked<State>
    private let onWait: (@Sendable (Wait) -> Void)?

    /// A limiter with `configuration`; `onWait` hears each wait a server imposes (to log it or
    /// count it), outside the limiter's lock.
    public init(configuration: Configuration = Configuration(), onWait: (@Sendable (Wait) -> Void)? = nil) {
        self.configuration = configuration
        self.onWait = onWait
        // A shared budget's tokens are claimed as they are needed: none are held at first.
        let initial = configuration.sharedBudget == nil ? Double(configuration.burst ?? configuration.requestsPerInterval ?? 0) : 0
        state = Locked(State(tokens: initial, refilled: .now()))
    }

    /// Requests of the limiter in flight now (holding a slot of `maximumConcurrentRequests`).
    public var requestsInFlight: Int { state.withLock { $0.holders.count } }

    /// Seconds until calls may go again after a server's wait; 0 when none is in force.
    public var secondsBlocked: Double {
        let now = DispatchTime.now()
        return state.withLock { $0.blockedUntil }.map { Self.seconds(from: now, to: $0) } ?? 0
    }

    // MARK: NetworkMiddleware

    /// Parks the call while a server's wait is in force, while calls parked before it wait, or
    /// while the budget is spent; adds the `Idempotency-Key` of a POST.
    public func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
        if configuration.sendsIdempotencyKeys { addIdempotencyKey(to: &request, of: context.operation) }
        let now = DispatchTime.now()
        let parked = parkingLot.count
        let holder = ObjectIdentifier(context.operation)
        var claims = false
        let replay = state.withLock { state -> DispatchTime?? in
            refill(&state, now: now)
            if let until = state.blockedUntil, now < until { return .some(schedule(&state, at: until)) }
            state.blockedUntil = nil
            let waitsForSlot = state.slotWaiters.contains(holder)
            // Calls parked for the budget or a server's wait go first; those parked for a slot
            // wait for their slot only.
            let queued = parked > state.slotWaiters.count && !waitsForSlot
            var spent = false
            if configuration.requestsPerInterval != nil {
                guard !queued, state.tokens >= 1 else {
                    guard configuration.sharedBudget != nil else { return .some(schedule(&state, at: now + secondsUntilToken(state))) }
                    // The shared budget's claim replays the parked calls when it returns.
                    claims = !state.claiming
                    state.claiming = true
                    return .some(nil)
                }
                state.tokens -= 1
                spent = true
            } else if queued {
                return .some(schedule(&state, at: now))
            }
            guard let limit = configuration.maximumConcurrentRequests, !state.holders.contains(holder) else { return .none }
            // A slot, unless they are taken or calls parked before this one wait for one: then
            // it parks until a slot is handed to it (the budget's token given back).
            if state.holders.count + state.reserved < limit, state.slotWaiters.isEmpty || waitsForSlot {
                state.holders.insert(holder)
                state.slotWaiters.remove(holder)
                return .none
            }
            if spent { state.tokens += 1 }
            state.slotWaiters.insert(holder)
            return .some(nil)
        }
        guard let replay else { return .proceed }
        if let replay { scheduleReplay(at: replay) }
        if claims { claimSharedTokens() }
        return .park(in: parkingLot)
    }

    /// Reads the server's limits from the answer: a wait for every later call, and a park of
    /// this one when it was refused for the rate (replayed once the wait is over).
    public func judge(_ outcome: AttemptOutcome, verdict: inout Verdict, context: MiddlewareContext) throws {
        if configuration.maximumConcurrentRequests != nil { release(context.operation) }
        guard configuration.honoursServerLimits, let status = outcome.statusCode else { return }
        var wait: Wait?
        var parksThis = false
        if status == 429 || status == 503, let seconds = retryAfter(outcome) {
            wait = Wait(reason: .retryAfter, seconds: seconds)
            // A 429 was not processed; a 503 is sent again only when the request may be.
            parksThis = status == 429 || outcome.isReplayable
        } else if let seconds = budgetReset(outcome) {
            wait = Wait(reason: .budgetExhausted, seconds: seconds)
        }
        guard let wait, wait.seconds > 0 else { return }
        let until = DispatchTime.now() + wait.seconds
        let replay = state.withLock { state -> DispatchTime? in
            if let current = state.blockedUntil, current >= until { return nil }
            state.blockedUntil = until
            return schedule(&state, at: until)
        }
        if let replay { scheduleReplay(at: replay) }
        onWait?(wait)
        if parksThis { verdict = .park(in: parkingLot) }
    }

    /// A call parked (here or by another stage): its slot goes to the first call parked here;
    /// a call parked here while a slot was free takes it.
    public func operationDidPark(_ operation: BaseOperation, in lot: ParkingLot) {
        guard let limit = configuration.maximumConcurrentRequests else { return }
        release(operation)
        guard lot === parkingLot else { return }
        // A slot freed between its `prepare` and its arrival in the lot.
        let reserved = state.withLock { state -> Bool in
            guard state.slotWaiters.contains(ObjectIdentifier(operation)), state.holders.count + state.reserved < limit else { return false }
            state.reserved += 1
            return true
        }
        if reserved { handOver() }
    }

    /// A run of a call ended (its request answered or stopped): its slot goes on.
    public func operationDidStopRunning(_ operation: BaseOperation) {
        if configuration.maximumConcurrentRequests != nil { release(operation) }
    }

    // MARK: The concurrency limit

    /// Frees `operation`'s slot, if it holds one; kept for the first call parked for one, if any.
    private func release(_ operation: BaseOperation) {
        let handsOver = state.withLock { state -> Bool in
            guard state.holders.remove(ObjectIdentifier(operation)) != nil, !state.slotWaiters.isEmpty else { return false }
            state.reserved += 1
            return true
        }
        if handsOver { handOver() }
    }

    /// Gives a reserved slot to the first call parked here for one and replays it; with none
    /// parked any more (they were cancelled), the slot is free again.
    private func handOver() {
        let waiters = state.withLock { $0.slotWaiters }
        let next = parkingLot.takeFirst { waiters.contains(ObjectIdentifier($0)) }
        state.withLock { state in
            state.reserved -= 1
            if let next {
                let id = ObjectIdentifier(next)
                state.holders.insert(id)
                state.slotWaiters.remove(id)
            } else {
                // Nobody parked waits for a slot: the rest were cancelled while parked.
                state.slotWaiters.subtract(waiters)
            }
        }
        guard let next else { return }
        CompletionQueue.async { next.replay(on: nil, update: nil) }
    }

    // MARK: The budget

    private func refill(_ state: inout State, now: DispatchTime) {
        guard let rate = configuration.requestsPerInterval, configuration.sharedBudget == nil else { return }
        let capacity = Double(configuration.burst ?? rate)
        let earned = Self.seconds(from: state.refilled, to: now) * Double(rate) / configuration.interval
        state.tokens = min(capacity, state.tokens + earned)
        state.refilled = now
    }

    private func secondsUntilToken(_ state: State) -> Double {
        guard let rate = configuration.requestsPerInterval else { return 0 }
        return max(0, 1 - state.tokens) * configuration.interval / Double(rate)
    }

    /// Claims a batch of tokens from the shared budget, then replays the parked calls: at once
    /// when some were granted, when the budget says a token is there otherwise. A budget that
    /// cannot be reached is asked again after a second; the calls stay parked (their deadlines
    /// end them), so the processes together never go over the limit.
    private func claimSharedTokens() {
        guard let budget = configuration.sharedBudget, let rate = configuration.requestsPerInterval else { return }
        let (interval, burst) = (configuration.interval, configuration.burst ?? rate)
        Task { [self] in
            let wait: Double
            do {
                let grant = try await budget.claim(max(1, budget.batchSize), rate: rate, interval: interval, burst: burst)
                state.withLock { state in
                    state.tokens += Double(grant.granted)
                    state.claiming = false
                }
                wait = grant.granted > 0 ? 0 : max(0.001, grant.retryAfter)
            } catch {
                state.withLock { $0.claiming = false }
                wait = 1
            }
            let time = DispatchTime.now() + wait
            let replay = state.withLock { schedule(&$0, at: time) }
            if let replay { scheduleReplay(at: replay) }
        }
    }

    /// Notes a replay at `time` unless one comes sooner; the time to schedule, or nil.
    private func schedule(_ state: inout State, at time: DispatchTime) -> DispatchTime? {
        if let scheduled = state.replayAt, scheduled <= time { return nil }
        state.replayAt = time
        return time
    }

    /// Replays the parked calls at `time`, first parked first; those still over a limit park
    /// again, in the same order.
    private func scheduleReplay(at time: DispatchTime) {
        CompletionQueue.timers.asyncAfter(deadline: time) { [self] in
            let due = state.withLock { state -> Bool in
                guard let scheduled = state.replayAt, scheduled <= .now() else { return false }
                state.replayAt = nil
                return true
            }
            guard due else { return }
            CompletionQueue.async { [self] in parkingLot.replayAll() }
        }
    }

    // MARK: Headers

    /// `Retry-After` in seconds, capped; nil when absent or malformed.
    private func retryAfter(_ outcome: AttemptOutcome) -> Double? {
        guard let response = outcome.response, let seconds = RetryPolicy.retryAfter(response) else { return nil }
        return min(seconds, configuration.maximumWait)
    }

    /// Seconds until the budget resets, when the answer says none is left; capped.
    private func budgetReset(_ outcome: AttemptOutcome) -> Double? {
        let field = { (name: String) in outcome.value(forHTTPHeaderField: name).map { String($0.trimmingHTTPWhitespace()) } }
        var remaining = field("X-RateLimit-Remaining").flatMap(Int.init) ?? field("RateLimit-Remaining").flatMap(Int.init)
        var reset: Double?
        if let value = field("X-RateLimit-Reset").flatMap(Double.init) {
            // GitHub sends the time of the reset in seconds since 1970; others a delay.
            reset = value > 1_000_000_000 ? value - Date().timeIntervalSince1970 : value
        } else if let value = field("RateLimit-Reset").flatMap(Double.init) {
            reset = value
        }
        if let combined = field("RateLimit") {
            for part in combined.split(whereSeparator: { $0 == "," || $0 == ";" }) {
                let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingHTTPWhitespace().lowercased() }
                guard pair.count == 2 else { continue }
                if pair[0] == "remaining" { remaining = Int(pair[1]) ?? remaining }
                if pair[0] == "reset" { reset = Double(pair[1]) ?? reset }
            }
        }
        guard remaining == 0, let reset, reset.isFinite, reset > 0 else { return nil }
        return min(reset, configuration.maximumWait)
    }

    private func addIdempotencyKey(to request: inout URLRequest, of operation: BaseOperation) {
        guard request.httpMethod?.uppercased() == "POST", request.value(forHTTPHeaderField: "Idempotency-Key") == nil else { return }
        var info = operation.userInfo
        let key = info[Self.idempotencyKeyInfo] as? String ?? UUID().uuidString
        if info[Self.idempotencyKeyInfo] == nil {
            info[Self.idempotencyKeyInfo] = key
            operation.userInfo = info
        }
        request.setValue(key, forHTTPHeaderField: "Idempotency-Key")
    }

    private static func seconds(from earlier: DispatchTime, to later: DispatchTime) -> Double {
        later > earlier ? Double(later.uptimeNanoseconds - earlier.uptimeNanoseconds) / 1e9 : 0
    }
}
