import Dispatch
import Foundation
import NetOps

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A stage that stops calling an origin that keeps failing: after `failureThreshold`
/// consecutive failures (transport errors and 5xx answers) its circuit *opens*, and requests to
/// it fail at once with `NetOpsError.Kind.circuitOpen` instead of each waiting for its own
/// timeout. After `coolDown` one request goes through as a probe (the circuit is *half open*);
/// its success closes the circuit, its failure opens it for another `coolDown`.
///
/// One breaker keeps one circuit per origin (scheme, host and port) it sees; give the same
/// breaker to every operation that calls those origins (a session's `middleware`, or an API's
/// `APIScope.Configuration.circuitBreaker`). 4xx answers, cancellations and requests refused
/// before they were sent count neither way. A `circuitOpen` failure is not retried.
///
/// A circuit is the origin's, whoever calls it: every credential, tenant and caller of the
/// breaker shares it, so the 5xx answers one tenant's requests bring about open it for all —
/// the breaker protects the origin, which is failing for whoever asks, and one circuit per
/// credential would let the others go on hammering it. A service whose tenants reach origins
/// that fail apart gives each tenant a breaker of its own. Only origins with failures to count
/// are kept (a success forgets a closed circuit), at most `maximumOrigins` of them: past that,
/// closed circuits go first, then the open ones that end soonest, so a service that calls
/// thousands of user-supplied hosts (webhooks) holds a bounded table.
///
/// ```swift
/// let breaker = CircuitBreaker(configuration: .init(failureThreshold: 5, coolDown: 30))
/// let session = NetworkSession(configuration: .default, options: .init(middleware: [breaker]))
/// ```
public final class CircuitBreaker: NetworkMiddleware, Sendable {
    /// When a circuit opens and how long it stays open.
    public struct Configuration: Sendable, Equatable {
        /// Consecutive failures that open the circuit (at least 1).
        public var failureThreshold: Int
        /// Seconds an open circuit refuses requests before it lets a probe through.
        public var coolDown: TimeInterval
        /// The most origins whose circuits are kept (default 1 024, at least 1).
        public var maximumOrigins: Int

        /// Opens after `failureThreshold` consecutive failures (default 5) for `coolDown`
        /// seconds (default 30), keeping the circuits of at most `maximumOrigins` origins.
        public init(failureThreshold: Int = 5, coolDown: TimeInterval = 30, maximumOrigins: Int = 1_024) {
            self.failureThreshold = max(1, failureThreshold)
            self.coolDown = max(0, coolDown)
            self.maximumOrigins = max(1, maximumOrigins)
        }
    }

    /// Where an origin's circuit is.
    public enum State: Sendable, Equatable {
        /// Requests go; `consecutiveFailures` failed in a row so far.
        case closed(consecutiveFailures: Int)
        /// Requests fail at once for `secondsLeft` more seconds (0: the next one probes).
        case open(secondsLeft: Double)
        /// One probe request is out; the others fail at once until it answers.
        case halfOpen
    }

    /// A circuit that changed state: its origin (`https://api.example.com:443`) and new state.
    public struct Transition: Sendable, Equatable {
        /// The origin whose circuit changed.
        public let origin: String
        /// The state it is in now.
        public let state: State
    }

    /// One origin's circuit.
    private enum Circuit {
        case closed(failures: Int)
        case open(until: DispatchTime)
        case halfOpen(probe: ObjectIdentifier, since: DispatchTime)
    }

    /// The breaker's settings.
    public let configuration: Configuration
    private let circuits = Locked<[String: Circuit]>([:])
    private let onTransition: (@Sendable (Transition) -> Void)?

    /// A breaker with `configuration`; `onTransition` hears each change of a circuit (to log it
    /// or count it), outside the breaker's lock.
    public init(configuration: Configuration = Configuration(), onTransition: (@Sendable (Transition) -> Void)? = nil) {
        self.configuration = configuration
        self.onTransition = onTransition
    }

    /// The origins whose circuits are kept now (at most `Configuration.maximumOrigins`).
    public var originCount: Int { circuits.withLock { $0.count } }

    /// The state of the circuit of `url`'s origin (closed with no failures for one never seen).
    public func state(of url: URL) -> State {
        guard let origin = Self.origin(of: url) else { return .closed(consecutiveFailures: 0) }
        return circuits.withLock { $0[origin] }.map { Self.state(of: $0, now: .now()) } ?? .closed(consecutiveFailures: 0)
    }

    // MARK: NetworkMiddleware

    /// Fails the request at once while its origin's circuit is open, or half open with a probe
    /// out; lets it through as the probe once the cool-down passed.
    public func prepare(_ request: inout URLRequest, context: MiddlewareContext) throws -> PrepareDecision {
        guard let url = request.url, let origin = Self.origin(of: url) else { return .proceed }
        let caller = ObjectIdentifier(context.operation)
        let now = DispatchTime.now()
        let coolDown = configuration.coolDown
        let (refusal, transition) = circuits.withLock { circuits -> (TimeInterval?, Transition?) in
            switch circuits[origin] {
            case nil, .closed:
                return (nil, nil)
            case let .open(until) where now < until:
                return (Self.seconds(from: now, to: until), nil)
            case let .halfOpen(probe, since) where probe != caller && now < since + coolDown:
                return (Self.seconds(from: now, to: since + coolDown), nil)
            case .open, .halfOpen:
                // The cool-down passed (or the probe never answered within it): this one probes.
                circuits[origin] = .halfOpen(probe: caller, since: now)
                return (nil, Transition(origin: origin, state: .halfOpen))
            }
        }
        if let transition { onTransition?(transition) }
        guard let refusal else { return .proceed }
        return .fail(NetOpsError(.circuitOpen(origin: origin, retryAfter: refusal), url: url))
    }

    /// Counts the attempt's outcome against its origin's circuit.
    public func judge(_ outcome: AttemptOutcome, verdict: inout Verdict, context: MiddlewareContext) throws {
        guard let url = outcome.request.url, let origin = Self.origin(of: url), let failed = Self.counts(outcome) else { return }
        let caller = ObjectIdentifier(context.operation)
        let now = DispatchTime.now()
        let configuration = configuration
        let transition = circuits.withLock { circuits -> Transition? in
            switch circuits[origin] ?? .closed(failures: 0) {
            case let .closed(failures):
                guard failed else {
                    // A closed circuit with no failure is what an unknown origin has: forgotten.
                    circuits[origin] = nil
                    return nil
                }
                if circuits[origin] == nil { Self.makeRoom(in: &circuits, keeping: configuration.maximumOrigins, now: now) }
                guard failures + 1 >= configuration.failureThreshold else {
                    circuits[origin] = .closed(failures: failures + 1)
                    return nil
                }
                circuits[origin] = .open(until: now + configuration.coolDown)
                return Transition(origin: origin, state: .open(secondsLeft: configuration.coolDown))
            case let .halfOpen(probe, _) where probe == caller:
                if failed {
                    circuits[origin] = .open(until: now + configuration.coolDown)
                    return Transition(origin: origin, state: .open(secondsLeft: configuration.coolDown))
                }
                circuits[origin] = nil
                return Transition(origin: origin, state: .closed(consecutiveFailures: 0))
            case .open, .halfOpen:
                // An answer to a request sent before the circuit opened: the probe decides.
                return nil
            }
        }
        if let transition { onTransition?(transition) }
    }

    // MARK: Helpers

    /// Removes circuits until one more fits within `limit`: closed ones first, then the open
    /// ones whose cool-down ends soonest (half-open ones, whose probe is out, last).
    private static func makeRoom(in circuits: inout [String: Circuit], keeping limit: Int, now: DispatchTime) {
        guard circuits.count >= limit else { return }
        for (origin, circuit) in circuits where circuits.count >= limit {
            if case .closed = circuit { circuits[origin] = nil }
        }
        func rank(_ circuit: Circuit) -> UInt64 {
            switch circuit {
            case .closed: return 0
            case let .open(until): return until.uptimeNanoseconds
            case .halfOpen: return .max
            }
        }
        while circuits.count >= limit, let first = circuits.min(by: { rank($0.value) < rank($1.value) }) {
            circuits[first.key] = nil
        }
    }

    /// Whether an attempt's outcome counts as a failure (true), a success (false), or neither
    /// (nil: cancelled, refused before it was sent, or a circuit's own refusal).
    private static func counts(_ outcome: AttemptOutcome) -> Bool? {
        switch outcome.error?.kind {
        case .cannotConnect, .offline, .connectionLost, .truncatedBody, .idleTimeout, .transport: return true
        case .none, .httpStatus: return (outcome.statusCode ?? 0) >= 500
        default: return nil
        }
    }

    /// `scheme://host:port` of `url`'s `Origin`, the port made explicit.
    static func origin(of url: URL) -> String? {
        Origin(url)?.description
    }

    private static func state(of circuit: Circuit, now: DispatchTime) -> State {
        switch circuit {
        case let .closed(failures): return .closed(consecutiveFailures: failures)
        case let .open(until): return .open(secondsLeft: seconds(from: now, to: until))
        case .halfOpen: return .halfOpen
        }
    }

    private static func seconds(from now: DispatchTime, to later: DispatchTime) -> TimeInterval {
        later > now ? Double(later.uptimeNanoseconds - now.uptimeNanoseconds) / 1e9 : 0
    }
}
