import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension BaseOperation {
    /// The mutable part of an operation besides its machine, guarded by `lock`: what the
    /// exchange produced, and four parts with a purpose each.
    struct Storage {
        /// The request as built (a failure when it could not be).
        var request: Result<URLRequest, NetOpsError>
        var body: TransferBody
        /// The head of the response kept (of the full response, also after a ranged resumption).
        var response: ResponseHead?
        var progress = TransferProgress()
        var parsedJSON: ParsedJSON = .notParsed
        /// The last request handed to the engine (credential and trace headers included).
        var lastSentRequest: URLRequest?
        var userInfo: [String: any Sendable] = [:]
        /// What `isFinished` answers: the state machine's value as of the last `isFinished`
        /// notification, set between its will- and did-change.
        var postedFinished = false
        /// How the operation is to run, set by its maker before it starts.
        var settings: Settings
        /// Who hears of its progress, state and end.
        var listeners = Listeners()
        /// Its owner, for `cancelAllOperations(ownedBy:in:)` and `cancelAllOperations(ownerID:in:)`.
        var ownership = Ownership()
        /// What its runs so far add up to.
        var history = RunHistory()
    }

    /// How an operation is to run: what its maker sets before it starts.
    struct Settings {
        var privateSession: NetworkSession?
        var acceptableStatusCodes = BaseOperation.successStatusCodes
        var idleTimeout: TimeInterval
        var totalTimeout: TimeInterval?
        var maximumResponseBodyBytes: Int64? = BaseOperation.defaultMaximumResponseBodyBytes
        var followsRedirects = true
        var cookieJar: CookieJar?
        var timeLimitBetweenRuns: TimeInterval = 0
        var runLimitKey: String?
        var interceptor: (any OperationInterceptor)?
        var retryPolicy: RetryPolicy?
        var isReplayable: Bool?
        var responseCheck: (@Sendable (BaseOperation) -> NetOpsError?)?
        var connectivityMonitor: ConnectivityMonitor?
        var observer: (any TransferObserver)?
        var redaction = Redaction.standard
        /// The process-wide defaults, read once when the operation was made.
        let defaults: Defaults
    }

    /// The closures and waiters told of an operation's progress, state and end (the delegate is
    /// `BaseOperation.lockedDelegate`).
    struct Listeners {
        var completionHandlers: [@Sendable (BaseOperation) -> Void] = []
        var progressHandlers: [@Sendable (BaseOperation, TransferProgress) -> Void] = []
        var stateHandlers: [@Sendable (BaseOperation, OperationState) -> Void] = []
        var finalWaiters: [@Sendable () -> Void] = []
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

    // What is in effect, read field by field: a computed property of `Settings` called on
    // `storage.settings` made Swift copy the whole struct for each call (callgrind: five copies
    // per request).

    /// The interceptor in effect: the operation's own, else the default it was made with. Call
    /// with the lock held.
    var interceptorInEffectLocked: (any OperationInterceptor)? {
        storage.settings.interceptor ?? storage.settings.defaults.interceptor
    }

    /// The retry policy in effect: the operation's own, else the default it was made with. Call
    /// with the lock held.
    var retryPolicyInEffectLocked: RetryPolicy {
        storage.settings.retryPolicy ?? storage.settings.defaults.retryPolicy
    }

    /// The session the operation's transfers run in. Call with the lock held.
    var sessionInEffectLocked: NetworkSession {
        storage.settings.privateSession ?? storage.settings.defaults.session
    }

    /// The process-wide defaults an operation falls back on, read once when it is made: changing
    /// them later affects operations made later, and no transfer reads process-wide state.
    struct Defaults {
        let session: NetworkSession
        let interceptor: (any OperationInterceptor)?
        let retryPolicy: RetryPolicy

        static var current: Defaults {
            Defaults(
                session: BaseOperation.defaultSession, interceptor: BaseOperation.defaultInterceptor,
                retryPolicy: BaseOperation.defaultRetryPolicy)
        }
    }

    /// The lazily parsed JSON of the response.
    enum ParsedJSON {
        case notParsed
        case parsed(Any?)
    }
}
