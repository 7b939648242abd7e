import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension BaseOperation {
    /// The mutable part of an operation besides its machine, guarded by `lock`: what the
    /// exchange produced, and four parts with a purpose each.
    ///
    /// Every operation carries one, so its size counts (`memory-per-queued-operation`): the
    /// flags sit in the padding after `request` and `body` (Swift lays fields out in the order
    /// declared), and what few operations have (rare settings, an owner, the parsed JSON) is
    /// behind a reference, nil until there is something.
    struct Storage {
        /// The request as built (a failure when it could not be).
        var request: Result<URLRequest, NetOpsError>
        /// What `isFinished` answers: the state machine's value as of the last `isFinished`
        /// notification, set between its will- and did-change.
        var postedFinished = false
        var body: TransferBody
        /// Whether `deferredForm` was written (or its write tried): a flag under the operation's
        /// lock, not a lock of its own (every operation would pay for one; few have a form).
        var deferredFormWritten = false
        /// The head of the response kept (of the full response, also after a ranged resumption).
        var response: ResponseHead?
        var progress = TransferProgress()
        /// The body parsed as JSON, once `json` was read (nil before).
        var parsedJSON: ParsedJSON?
        /// The last request handed to the engine (credential and trace headers included).
        var lastSentRequest: URLRequest?
        /// What the operation's stages share (`CallValues`), by key type.
        var values: [ObjectIdentifier: any Sendable] = [:]
        /// How the operation is to run, set by its maker before it starts.
        var settings: Settings
        /// Who hears of its progress, state and end.
        var listeners = Listeners()
        /// Its owner, for `cancelAllOperations(ownedBy:in:)` and `cancelAllOperations(ownerID:in:)`:
        /// nil for an operation nobody owns.
        private var ownershipBox: OwnershipBox?
        /// What its runs so far add up to.
        var history = RunHistory()
        /// What was fixed when the operation first started: its session and middleware chain.
        var frozen: Frozen?
        /// The lot the operation is parked in, while it is parked.
        var parkedIn: ParkingLot?
        /// What postponing added: a modification for the replay, a successor.
        var postponement: Postponement?
        /// The task awaiting the operation in `run()`, which carries out the ends of its
        /// transfers when nobody who may block listens (`EndRelay`); nil otherwise.
        var endRelay: EndRelay?

        /// An operation's storage before it starts: `request` to send with `body`, `settings`.
        init(request: Result<URLRequest, NetOpsError>, body: TransferBody, settings: Settings) {
            self.request = request
            self.body = body
            self.settings = settings
        }

        /// The operation's owner (none by default). Changing it makes a new box: an operation
        /// changes its owner rarely, and nothing else shares the box.
        var ownership: Ownership {
            get { ownershipBox?.ownership ?? Ownership() }
            set { ownershipBox = OwnershipBox(newValue) }
        }
    }

    /// An `Ownership` behind one reference.
    final class OwnershipBox {
        let ownership: Ownership

        init(_ ownership: Ownership) {
            self.ownership = ownership
        }
    }

    /// What an operation fixes when it first starts: the session it runs in (its
    /// `privateSession`, else `NetworkSession.shared`) and the chain its requests and answers
    /// pass through. Nothing set on the operation, its session or its scope afterwards changes
    /// them. A class: an operation that has not started carries one reference, not the fields.
    final class Frozen: Sendable {
        let session: NetworkSession
        /// The stages, outermost first: the session's, the retry policy's, the interceptor's,
        /// the operation's own, and connectivity's last.
        let chain: [any NetworkMiddleware]
        /// Why the run slot of `timeLimitBetweenRuns` was refused, if it was.
        let runSlotRefusal: NetOpsError?
        /// The stages of `chain` that take part in the transfer itself (`TransferStage`), in
        /// the chain's order: found once, by conformance, not per request. Each is a layer:
        /// two caches are two.
        let transferStages: [any TransferStage]

        init(session: NetworkSession, chain: [any NetworkMiddleware], runSlotRefusal: NetOpsError?) {
            self.session = session
            self.chain = chain
            self.runSlotRefusal = runSlotRefusal
            transferStages = chain.compactMap { $0 as? any TransferStage }
        }
    }

    /// How an operation is to run: what its maker sets before it starts.
    ///
    /// The settings most operations leave alone (TLS and proxy, cookie jar, retry policy,
    /// interceptor, run limit, connectivity monitor, redaction) live in one box, nil until one
    /// of them is set: a plain operation carries one reference for them, not some 300 bytes.
    struct Settings {
        var privateSession: NetworkSession?
        /// The settings the operation's maker set, which its session's options do not replace.
        var overrides: Overrides = []
        var followsRedirects = true
        var acceptableStatusCodes = AcceptedStatusCodes.successful
        var idleTimeout: TimeInterval
        var totalTimeout: TimeInterval?
        var maximumResponseBodyBytes: Int64? = BaseOperation.defaultMaximumResponseBodyBytes
        var middleware: [any NetworkMiddleware] = []
        var callbackQueue: DispatchQueue?
        /// The rarely set settings; nil while all have their defaults.
        private var rare: RareBox?

        /// The defaults, with an idle timeout of `idleTimeout` seconds.
        init(idleTimeout: TimeInterval) {
            self.idleTimeout = idleTimeout
        }

        /// The operation's own TLS settings and HTTP/2 switch.
        var transport: TransportChoice {
            get { rare?.settings.transport ?? .standard }
            set { updateRare { $0.transport = newValue } }
        }
        var cookieJar: CookieJar? {
            get { rare?.settings.cookieJar }
            set { updateRare { $0.cookieJar = newValue } }
        }
        var timeLimitBetweenRuns: TimeInterval {
            get { rare?.settings.timeLimitBetweenRuns ?? 0 }
            set { updateRare { $0.timeLimitBetweenRuns = newValue } }
        }
        var runLimitKey: String? {
            get { rare?.settings.runLimitKey }
            set { updateRare { $0.runLimitKey = newValue } }
        }
        /// The stage the deprecated `interceptor` setting made (the interceptor itself when it
        /// is a stage, else it in an adapter).
        var interceptorStage: (any NetworkMiddleware)? {
            get { rare?.settings.interceptorStage }
            set { updateRare { $0.interceptorStage = newValue } }
        }
        var retryPolicy: RetryPolicy? {
            get { rare?.settings.retryPolicy }
            set { updateRare { $0.retryPolicy = newValue } }
        }
        var isReplayable: Bool? {
            get { rare?.settings.isReplayable }
            set { updateRare { $0.isReplayable = newValue } }
        }
        var connectivityMonitor: ConnectivityMonitor? {
            get { rare?.settings.connectivityMonitor }
            set { updateRare { $0.connectivityMonitor = newValue } }
        }
        /// The operation's own redaction; nil: its session's once it started, the standard set
        /// before (`redactionLocked`).
        var redaction: Redaction? {
            get { rare?.settings.redaction }
            set { updateRare { $0.redaction = newValue } }
        }

        /// Changes a rarely set setting: a new box, so a copy of these settings (`freezing()`
        /// takes one) never sees the change.
        private mutating func updateRare(_ change: (inout RareSettings) -> Void) {
            var settings = rare?.settings ?? RareSettings()
            change(&settings)
            rare = RareBox(settings)
        }
    }

    /// The settings few operations set, with their defaults.
    struct RareSettings {
        var transport = TransportChoice.standard
        var cookieJar: CookieJar?
        var timeLimitBetweenRuns: TimeInterval = 0
        var runLimitKey: String?
        var interceptorStage: (any NetworkMiddleware)?
        var retryPolicy: RetryPolicy?
        var isReplayable: Bool?
        var connectivityMonitor: ConnectivityMonitor?
        var redaction: Redaction?
    }

    /// `RareSettings` behind one reference; never changed once made.
    final class RareBox {
        let settings: RareSettings

        init(_ settings: RareSettings) {
            self.settings = settings
        }
    }

    /// The settings an operation's maker set explicitly.
    struct Overrides: OptionSet {
        let rawValue: UInt8
        static let idleTimeout = Overrides(rawValue: 1 << 0)
        static let totalTimeout = Overrides(rawValue: 1 << 1)
        static let maximumResponseBodyBytes = Overrides(rawValue: 1 << 2)
    }

    /// The closures and waiters told of an operation's progress, state and end (the delegate is
    /// `BaseOperation.lockedDelegate`).
    struct Listeners {
        var completionHandlers: [@Sendable (BaseOperation) -> Void] = []
        /// How many of `completionHandlers` never block (`onEnd(_:)`: APILayer's own).
        var nonBlockingCompletions = 0
        var progressHandlers: [@Sendable (BaseOperation, TransferProgress) -> Void] = []
        var stateHandlers: [@Sendable (BaseOperation, OperationState) -> Void] = []
        var finalWaiters: [@Sendable () -> Void] = []
        /// The end took the completion closures: one added later runs at once. (Between the
        /// machine's final state and this, a closure added still joins the others.)
        var completionsTaken = false
        /// The end released the waiters: one added later runs at once.
        var waitersReleased = false
    }

    /// The object and the identifier an operation belongs to.
    struct Ownership {
        weak var owner: AnyObject?
        /// The identity of `owner` when it was set: still there while the owner deinitializes.
        var ownerIdentifier: ObjectIdentifier?
        var ownerID: String?
        /// Whether the operation is listed where `cancelAllOperations(ownedBy:)` and
        /// `cancelAllOperations(ownerID:)` look (`OperationRegistry`): only an operation with an
        /// owner or an owner ID is, from its start or from when it got one, to its end.
        var isListed = false

        /// Whether an owner or an owner ID was given.
        var hasOwner: Bool { ownerIdentifier != nil || ownerID != nil }
    }

    /// What an operation's runs add up to, across suspensions, retries and replays.
    struct RunHistory {
        /// Runs numbered so far: each new run takes the next number (`newRunLocked()`).
        var runsNumbered: UInt64 = 0
        /// Requests handed to the engine.
        var attemptsMade = 0
        /// Seconds waited between attempts.
        var retryWaited: TimeInterval = 0
        /// Seconds worked in runs that ended, and parked (suspended time is not counted).
        var workedSeconds: Double = 0
        /// While parked: since when, and the number its total deadline is armed under (a
        /// number of its own, so no event of an earlier or later run mistakes it for theirs).
        var parked: (since: DispatchTime, number: UInt64)?
        var rangeResumes = 0
        var restartsFromZero = 0
        /// Whether the operation holds its slot of `timeLimitBetweenRuns`.
        var holdsRunSlot = false
        var dateDelayAfterExecution: Date?
    }

    /// The session the operation's transfers run in, once it started. Call with the lock held.
    var sessionInEffectLocked: NetworkSession? {
        storage.frozen?.session
    }

    /// What the operation's descriptions hide: its own redaction, else its session's once it
    /// started, else the standard set. Call with the lock held.
    var redactionLocked: Redaction {
        storage.settings.redaction ?? storage.frozen?.session.options.redaction ?? .standard
    }

    /// The response's body as `JSONSerialization` parsed it, kept behind one reference (the
    /// `Any?` inline would be 32 bytes of every operation).
    final class ParsedJSON {
        let value: Any?

        init(_ value: Any?) {
            self.value = value
        }
    }
}

/// The status codes an operation accepts: the 2xx range unless its maker chose others. The
/// default is a range, not a shared `Set`: copying an operation's settings then retains nothing
/// that every operation of the process retains too (a reference count all cores would write).
enum AcceptedStatusCodes: Sendable {
    case successful
    case chosen(Set<Int>)

    func contains(_ code: Int) -> Bool {
        switch self {
        case .successful: return (200..<300).contains(code)
        case let .chosen(codes): return codes.contains(code)
        }
    }

    /// The codes as a set, as `acceptableStatusCodes` gives them.
    var codes: Set<Int> {
        switch self {
        case .successful: return BaseOperation.successStatusCodes
        case let .chosen(codes): return codes
        }
    }
}
