import Crypto
import Dispatch
import Foundation
import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A stage that keeps an API's calls within its rate limits: the server's, read from its
/// answers, and optionally a budget of its own. Calls over a limit are parked, not failed, and
/// replayed in the order they parked when the limit allows; the time parked counts against each
/// operation's `totalTimeout`.
///
/// - **The server's limits** (`honoursServerLimits`, on by default): a 429, or a 503 of a
///   replayable request, that says when to come back (`Retry-After`) parks the call and the
///   later calls of the same caller until then. An answer whose budget headers say nothing is
///   left (`X-RateLimit-Remaining: 0` with `X-RateLimit-Reset`, as GitHub sends;
///   `RateLimit-Remaining` and `RateLimit-Reset`, or `RateLimit: …remaining=0, reset=N`, of the
///   IETF draft) parks that caller's later calls until the reset. *The same caller* means the
///   same origin and the same credentials as the request carried when it reached the limiter
///   (its `Authorization`, cookies, API-key headers and secret query parameters — a per-call
///   token given with `headers:`; an API's own token, placed after the limiter, is the same for
///   all its calls): one user's exhausted token never holds back another's calls. An answer
///   that came from another origin than the request's (the target of a redirect: a CDN, an
///   object store) sets no wait. A wait past `maximumWait` (a minute by default) is cut to it; a
///   date in the past, or a value that does not parse, sets no wait. At most
///   `maximumParkedCalls` calls wait for servers at once: past that, a call that would wait
///   fails at once (`WaitRefusal`), and a 429 ends its call with its status.
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
        /// The longest wait a server's answer imposes, in seconds (default 60): a `Retry-After`
        /// of a year holds calls back a minute, then they ask again.
        public var maximumWait: TimeInterval
        /// The most calls that wait for servers' limits at once (default 1 000): past it, a call
        /// that would wait fails at once, so a service under load does not pile up calls (and
        /// the requests that made them) until their deadlines.
        public var maximumParkedCalls: Int
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
            maximumWait: TimeInterval = 60, sendsIdempotencyKeys: Bool = false, maximumConcurrentRequests: Int? = nil,
            sharedBudget: (any SharedRateBudget)? = nil, maximumParkedCalls: Int = 1_000
        ) {
            self.maximumParkedCalls = max(0, maximumParkedCalls)
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
                && lhs.maximumParkedCalls == rhs.maximumParkedCalls
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

    /// Why a call failed at once instead of waiting for a server's limit: `maximumParkedCalls`
    /// calls wait already.
    public struct WaitRefusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// The origin whose limit is in force (`https://api.example.com:443`).
        public let origin: String
        /// Seconds until the caller's calls go again.
        public let secondsLeft: Double
        /// The calls waiting already.
        public let waiting: Int

        /// One line naming the origin and the wait.
        public var description: String {
            "\(origin) asked to wait \(Int(secondsLeft.rounded(.up))) s more and \(waiting) calls wait already: not sent"
        }
    }

    /// The `Idempotency-Key` a call's POSTs carry (made at its first request, sent again by its
    /// retries and replays): set one before `start()` to choose it.
    public enum IdempotencyKey: CallValueKey {
        /// The key's value.
        public typealias Value = String
    }

    /// The most callers (origin and credentials) whose waits are kept; past it, the soonest to
    /// end goes.
    static let maximumWaitKeys = 1_024

    private struct State {
        /// No call of a caller (an origin and credentials, `waitKey(of:)`) goes before its time.
        var waits: [String: DispatchTime] = [:]
        /// The caller each request in flight was sent as, noted when it left (`prepare`): its
        /// answer's wait is that caller's, whatever stages placed after the limiter added.
        var callers: [ObjectIdentifier: String] = [:]
        /// When the calls parked for a server's wait are replayed next, if a replay is scheduled.
        var waitReplayAt: DispatchTime?
        var tokens: Double
        var refilled: DispatchTime
        /// When the parked calls are replayed next, if a replay is scheduled.
        var replayAt: DispatchTime?
        /// A replay of the parked calls is due and has not taken them from the lot yet.
        var sweeping = false
        /// The same for the calls waiting for servers.
        var waitSweeping = false
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
    /// Where the calls over the budget or the concurrency limit wait, first parked first.
    public let parkingLot = ParkingLot()
    /// Where the calls held back by a server's wait wait: apart, so a caller that waits for its
    /// own limit is never in the way of another's budget.
    private let waitLot = ParkingLot()
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

    /// Seconds until the last caller held back by a server's wait may go again; 0 when none is
    /// in force.
    public var secondsBlocked: Double {
        let now = DispatchTime.now()
        return state.withLock { $0.waits.values.max() }.map { Self.seconds(from: now, to: $0) } ?? 0
    }

    /// Calls waiting now for a server's limit.
    public var callsWaitingForServers: Int { waitLot.count }

    // MARK: NetworkMiddleware

    /// Parks the call while a server's wait is in force for its caller, while calls parked
    /// before it wait, or while the budget is spent; adds the `Idempotency-Key` of a POST.
    public func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
        if configuration.sendsIdempotencyKeys { addIdempotencyKey(to: &request, of: context.operation) }
        let now = DispatchTime.now()
        let parked = parkingLot.count
        let holder = ObjectIdentifier(context.operation)
        let caller = configuration.honoursServerLimits ? Self.waitKey(of: request) : ""
        var claims = false
        enum ServerWait {
            case none
            case park(replay: DispatchTime?)
            case refuse(WaitRefusal)
        }
        var serverWait = ServerWait.none
        let waiting = waitLot.count
        let replay = state.withLock { state -> DispatchTime?? in
            refill(&state, now: now)
            if let until = state.waits[caller] {
                if now < until {
                    guard waiting < configuration.maximumParkedCalls else {
                        serverWait = .refuse(
                            WaitRefusal(origin: Self.origin(of: caller), secondsLeft: Self.seconds(from: now, to: until), waiting: waiting))
                        return .none
                    }
                    serverWait = .park(replay: scheduleWaitReplay(&state, at: until))
                    return .none
                }
                state.waits[caller] = nil
            }
            if configuration.honoursServerLimits { state.callers[holder] = caller }
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
        switch serverWait {
        case .none: break
        case let .park(waitReplay):
            if let waitReplay { scheduleWaitReplay(at: waitReplay) }
            return .park(in: waitLot)
        case let .refuse(refusal):
            return .fail(refusal)
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
        guard configuration.honoursServerLimits else { return }
        let noted = state.withLock { $0.callers.removeValue(forKey: ObjectIdentifier(context.operation)) }
        guard let status = outcome.statusCode else { return }
        // The answer of a host a redirect reached speaks for that host, not for the API.
        if let requested = outcome.request.url, let answered = outcome.url, !Origin.same(requested, answered) { return }
        let caller = noted ?? Self.waitKey(of: outcome.request)
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
        let now = DispatchTime.now()
        let until = now + wait.seconds
        let replay = state.withLock { state -> DispatchTime? in
            if let current = state.waits[caller], current >= until { return nil }
            if state.waits[caller] == nil, state.waits.count >= Self.maximumWaitKeys {
                state.waits = state.waits.filter { $0.value > now }
                if state.waits.count >= Self.maximumWaitKeys, let soonest = state.waits.min(by: { $0.value < $1.value }) {
                    state.waits[soonest.key] = nil
                }
            }
            state.waits[caller] = until
            return scheduleWaitReplay(&state, at: until)
        }
        if let replay { scheduleWaitReplay(at: replay) }
        onWait?(wait)
        // Past `maximumParkedCalls`, the refused call ends with its status instead of waiting.
        if parksThis, waitLot.count < configuration.maximumParkedCalls { verdict = .park(in: waitLot) }
    }

    /// A call parked (here or by another stage): its slot goes to the first call parked here;
    /// a call parked here while a slot was free takes it; a call parked here finds a replay to
    /// come.
    public func operationDidPark(_ operation: BaseOperation, in lot: ParkingLot) {
        if lot === parkingLot || lot === waitLot { ensureReplay(of: operation, in: lot) }
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
        if configuration.honoursServerLimits { state.withLock { _ = $0.callers.removeValue(forKey: ObjectIdentifier(operation)) } }
    }

    /// A call joins the lot outside the limiter's lock, a moment after `prepare` parked it
    /// counting on the replay then scheduled: a replay that took the lot in that moment did not
    /// see it. Once it is in the lot, a replay is scheduled when none is still to come or taking
    /// the lot (either sees it), none is claiming shared tokens (the claim replays when it
    /// returns), and the call is still here. A call waiting for a slot is replayed by the slot's
    /// hand-over instead.
    private func ensureReplay(of operation: BaseOperation, in lot: ParkingLot) {
        let forServers = lot === waitLot
        let pending = state.withLock { state in
            forServers
                ? state.waitReplayAt != nil || state.waitSweeping
                : state.replayAt != nil || state.sweeping || state.claiming || state.slotWaiters.contains(ObjectIdentifier(operation))
        }
        guard !pending, lot.contains(operation) else { return }
        let now = DispatchTime.now()
        if forServers {
            let replay = state.withLock { state -> DispatchTime? in
                guard state.waitReplayAt == nil, !state.waitSweeping else { return nil }
                // The soonest wait still in force, or at once: a call whose wait is still on parks again.
                return scheduleWaitReplay(&state, at: state.waits.values.filter { $0 > now }.min() ?? now)
            }
            if let replay { scheduleWaitReplay(at: replay) }
        } else {
            let replay = state.withLock { state -> DispatchTime? in
                guard state.replayAt == nil, !state.sweeping, !state.claiming else { return nil }
                refill(&state, now: now)
                return schedule(&state, at: now + secondsUntilToken(state))
            }
            if let replay { scheduleReplay(at: replay) }
        }
    }

    // MARK: Server waits

    /// Who a request is to a server's limits: its origin and, when it carries any, a digest of
    /// its credentials (the header fields and query parameters the standard `Redaction` calls
    /// secret). Two requests with the same key share a server's wait; no other do.
    static func waitKey(of request: URLRequest) -> String {
        guard let url = request.url else { return "" }
        let origin = CircuitBreaker.origin(of: url) ?? ""
        var credentials: [String] = []
        for (name, value) in request.allHTTPHeaderFields ?? [:] where Redaction.standard.isSecret(header: name) {
            // A key of the request itself, not of the caller: each POST has its own.
            if name.caseInsensitiveEquals("Idempotency-Key") { continue }
            credentials.append(name.lowercased() + ":" + value)
        }
        if url.query != nil, let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems {
            for item in items where Redaction.standard.isSecret(parameter: item.name) {
                credentials.append("?" + item.name + "=" + (item.value ?? ""))
            }
        }
        guard !credentials.isEmpty else { return origin }
        credentials.sort()
        return origin + " " + HTTPCache.hex(SHA256.hash(data: Data(credentials.joined(separator: "\n").utf8)))
    }

    /// The origin of a wait key.
    private static func origin(of key: String) -> String {
        String(key.split(separator: " ", maxSplits: 1).first ?? "")
    }

    /// Notes a replay of the calls waiting for servers at `time` unless one comes sooner; the
    /// time to schedule, or nil.
    private func scheduleWaitReplay(_ state: inout State, at time: DispatchTime) -> DispatchTime? {
        if let scheduled = state.waitReplayAt, scheduled <= time, scheduled > .now() { return nil }
        state.waitReplayAt = time
        return time
    }

    /// Replays the calls waiting for servers at `time`, first parked first; those whose wait is
    /// still in force park again.
    private func scheduleWaitReplay(at time: DispatchTime) {
        scheduleSweep(of: waitLot, at: time, due: \.waitReplayAt, taking: \.waitSweeping)
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
        scheduleSweep(of: parkingLot, at: time, due: \.replayAt, taking: \.sweeping)
    }

    /// At `time`, if that is still when the lot's replay is due (`due`), takes every call parked
    /// in `lot` and replays them in order; `taking` is set from then until they are out of the
    /// lot, so a call that arrives meanwhile knows whether this replay will see it.
    private func scheduleSweep(
        of lot: ParkingLot, at time: DispatchTime, due: any WritableKeyPath<State, DispatchTime?> & Sendable,
        taking: any WritableKeyPath<State, Bool> & Sendable
    ) {
        CompletionQueue.timers.asyncAfter(deadline: time) { [self] in
            let isDue = state.withLock { state -> Bool in
                guard let scheduled = state[keyPath: due], scheduled <= .now() else { return false }
                state[keyPath: due] = nil
                state[keyPath: taking] = true
                return true
            }
            guard isDue else { return }
            CompletionQueue.async { [self] in
                let operations = lot.takeAll()
                state.withLock { $0[keyPath: taking] = false }
                for operation in operations { operation.replay(on: nil, update: nil) }
            }
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
        let values = operation.values
        var key = values[IdempotencyKey.self]
        if key == nil {
            // Made outside the operation's lock; kept only if no other key came meanwhile.
            let made = UUID().uuidString
            key = values.update(IdempotencyKey.self) { kept in
                if kept == nil { kept = made }
                return kept
            }
        }
        guard let key else { return }
        request.setValue(key, forHTTPHeaderField: "Idempotency-Key")
    }

    private static func seconds(from earlier: DispatchTime, to later: DispatchTime) -> Double {
        later > earlier ? Double(later.uptimeNanoseconds - earlier.uptimeNanoseconds) / 1e9 : 0
    }
}
